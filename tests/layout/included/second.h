/* Included by first.h. */
int second(void);
