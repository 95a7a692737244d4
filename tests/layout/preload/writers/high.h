/* A writer: above state/, so state/ may not use it. */
void high_flush(void);
