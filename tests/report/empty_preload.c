/* A shared object that does nothing: something real to leave in LD_PRELOAD
 * in the tests of `nccltap run`, and a stand-in shim in a fake install. */
int nccltap_cli_test_empty_preload;
