/* In preload/ but in no floor folder. */
int misplaced(void);
int misplaced(void) { return 0; }
