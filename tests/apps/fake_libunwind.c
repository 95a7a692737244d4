/* A library named libunwind.so.8 with nothing of libunwind in it. Found
 * first on LD_LIBRARY_PATH, it makes the shim's dlopen of libunwind succeed
 * and its dlsym of unw_backtrace fail: a machine where deep call sites
 * cannot be had (shim.callsites_without_libunwind). A translation unit
 * must declare something. */
int nccltap_not_libunwind;
