/* Called by caller(); calls nothing of the fixture's. */
int callee(int n);

int callee(int n) { return 2 * n; }
