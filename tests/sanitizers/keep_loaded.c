/* Preloaded by `make test-asan` (LD_PRELOAD): dlclose keeps every shared object loaded.
 * OpenMPI loads its components with dlopen and closes them in MPI_Finalize, so the allocations
 * they never free would reach LeakSanitizer's report with "<unknown module>" frames that no
 * suppression can name; kept loaded, they carry their library's name (lsan.supp). */
int dlclose(void* handle) {
  (void)handle;
  return 0;
}
