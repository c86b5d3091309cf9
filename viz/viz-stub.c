/* replaced by the visualization layer */
typedef int ecp_viz_placeholder;
