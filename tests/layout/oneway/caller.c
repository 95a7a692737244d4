/* Calls callee(); nothing calls back. */
int callee(int n);
int caller(int n);

int caller(int n) { return callee(n) + 1; }
