/* Calls pong(), which calls back: a circle made of calls alone. */
int pong(int n);
int ping(int n);

int ping(int n) { return n > 0 ? pong(n - 1) : 0; }
