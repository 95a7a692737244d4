/* The ground floor: anything may call it. */
int ground_count(void);
