/* replaced by the recorder driver */
typedef int ecp_recorder_placeholder;
