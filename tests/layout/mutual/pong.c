/* Calls ping(), which calls back. */
int ping(int n);
int pong(int n);

int pong(int n) { return n > 0 ? ping(n - 1) : 1; }
