/* The state floor, below writers/. */
void low_run(void);
