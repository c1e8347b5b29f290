/* placeholder */ typedef int pvecg_placeholder_t;
