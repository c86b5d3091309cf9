/* replaced by the ECP engine */
typedef int ecp_engine_placeholder;
