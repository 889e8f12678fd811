// Intra-op threads of the reference kernels.
//
// Kernels split big work into chunks whose boundaries depend only on the shapes involved,
// never on the number of threads, and every chunk computes its outputs the same way
// whichever thread runs it. Results are therefore bit-identical for every thread count; the
// count only changes speed. The default is 1 (no extra threads), or the value of the
// environment variable PIPESPLIT_NUM_THREADS when set. Processes that run several pipeline
// stages side by side usually keep 1 per stage.
#ifndef PIPESPLIT_RUNTIME_KERNELS_THREADING_H_
#define PIPESPLIT_RUNTIME_KERNELS_THREADING_H_

namespace pipesplit::runtime {

// Sets the number of threads kernels may use (values below 1 mean 1). Safe to call at any
// time; kernels already running finish with the threads they started with.
void SetNumThreads(int threads);
int GetNumThreads();

// Gives the calling thread its own pool of `threads` for the kernels it runs (pipeline groups
// side by side in one process each use their share of the cores); 0 returns it to the
// process-wide setting. The pool ends with the thread.
void SetThreadNumThreads(int threads);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_KERNELS_THREADING_H_
