// Swift Concurrency's global executor hook, reached by the linker rather than by dlsym.
#include "lullsys.h"
#include <stddef.h>

// Defined by the Swift runtime (libswift_Concurrency): when set, every job for the global
// executor goes to it instead of the default thread pool. Its type is
// SWIFT_CC(swift) void (*)(Job *job, void (*original)(Job *)).
extern void *swift_task_enqueueGlobal_hook;

static lull_job_sink sink;

__attribute__((swiftcall)) static void lull_enqueue_global(void *job, void *original) {
    (void)original;
    sink(job);
}

int lull_take_over_global_executor(lull_job_sink jobs) {
    sink = jobs;
    void *expected = NULL;
    return __atomic_compare_exchange_n(
        &swift_task_enqueueGlobal_hook, &expected, (void *)&lull_enqueue_global, 0,
        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
