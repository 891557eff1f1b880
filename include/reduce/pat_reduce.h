/*
 * patreduce: MPI_Reduce-compatible reductions that stay fast when processes
 * arrive at different times.
 *
 * Every entry point has MPI_Reduce's exact contract and returns an MPI error
 * code; errors are raised through the communicator's error handler.  The
 * helpers that do not communicate (name lookup, schedules) return a
 * pat_reduce_error, which pat_strerror() describes.
 */
#ifndef PAT_REDUCE_H
#define PAT_REDUCE_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The algorithms, one X(ID, name) line each, in table order: the one list
 * from which the ids (PAT_REDUCE_ALG_ID), the per-algorithm entry points
 * (pat_reduce_name) and the algorithm table (src/core/algtable.c: the row
 * pat_alg_name that src/name/ defines) are generated.
 *   binomial       binomial tree, the default
 *   native         the MPI library's own PMPI_Reduce
 *   clairvoyant    greedy tree for predicted arrival times
 *   localredirect  dynamic handshake/redirect protocol
 *   ring           ring reduce-scatter, then binomial gather
 *   butterfly      Rabenseifner: recursive halving, then gather
 *   radixk         radix-k reduce-scatter, then gather
 *   pipeline       pipelined chain, the message cut in segments */
#define PAT_REDUCE_ALGORITHMS(X)                                               \
  X(BINOMIAL, binomial)                                                        \
  X(NATIVE, native)                                                            \
  X(CLAIRVOYANT, clairvoyant)                                                  \
  X(LOCALREDIRECT, localredirect)                                              \
  X(RING, ring)                                                                \
  X(BUTTERFLY, butterfly)                                                      \
  X(RADIXK, radixk)                                                            \
  X(PIPELINE, pipeline)                                                        \
  X(AUTO, auto)

/* Algorithm ids, in the order of the list above. */
typedef enum pat_reduce_alg {
#define PAT_REDUCE_X_ID(ID, name) PAT_REDUCE_ALG_##ID,
  PAT_REDUCE_ALGORITHMS(PAT_REDUCE_X_ID)
#undef PAT_REDUCE_X_ID
      PAT_REDUCE_ALG_COUNT /* sentinel: number of algorithms */
} pat_reduce_alg;

/* Library-level errors (never MPI error codes). */
typedef enum pat_reduce_error {
  PAT_SUCCESS = 0,
  PAT_ERR_INVALID_ARG,       /* a NULL pointer or out-of-range value */
  PAT_ERR_NO_MEMORY,         /* an allocation failed */
  PAT_ERR_UNKNOWN_ALGORITHM, /* no algorithm has that name */
  PAT_ERR_BAD_ENV,           /* an environment variable has a bad value */
  PAT_ERR_INVALID_SCHEDULE,  /* a schedule failed validation */
  PAT_ERR_NO_CALL_YET,       /* no reduction ran on that communicator yet */
  PAT_ERR_NOT_A_SCHEDULE,    /* the algorithm builds no schedule */
  PAT_ERR_COUNT              /* sentinel */
} pat_reduce_error;

/* Describes a pat_reduce_error; never NULL. */
const char *pat_strerror(int err);

/* MPI_Reduce with the algorithm named by PAT_REDUCE_ALGORITHM (default
 * binomial).  A call the algorithm cannot serve is passed to one that can. */
int pat_reduce(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);

/* MPI_Reduce with an explicit algorithm (ignores PAT_REDUCE_ALGORITHM). */
int pat_reduce_using(pat_reduce_alg alg, const void *sendbuf, void *recvbuf,
                     int count, MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm);

/* One entry point per algorithm, same contract as MPI_Reduce:
 * pat_reduce_binomial, pat_reduce_native, pat_reduce_clairvoyant,
 * pat_reduce_localredirect, ... */
#define PAT_REDUCE_X_ENTRY(ID, name)                                           \
  int pat_reduce_##name(const void *sendbuf, void *recvbuf, int count,         \
                        MPI_Datatype datatype, MPI_Op op, int root,            \
                        MPI_Comm comm);
PAT_REDUCE_ALGORITHMS(PAT_REDUCE_X_ENTRY)
#undef PAT_REDUCE_X_ENTRY

/* MPI_Reduce with an explicit algorithm, told the arrival times instead of
 * predicting them: arrivals[i] is when rank i arrives (nranks entries,
 * seconds, any common origin) and round_cost the cost of one message,
 * receive + combine, whatever its size (seconds; <= 0 uses the library's
 * measured or configured cost model, and fails with MPI_ERR_ARG while there
 * is none).  Both must be bitwise identical on every rank.  Algorithms that
 * plan by arrival times (clairvoyant) use them; the others ignore them.
 * With the clairvoyant algorithm this is the "oracle". */
int pat_reduce_with_arrivals(pat_reduce_alg alg, const void *sendbuf,
                             void *recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op, int root, MPI_Comm comm,
                             const double *arrivals, double round_cost);

/* pat_reduce_with_arrivals(PAT_REDUCE_ALG_CLAIRVOYANT, ...): kept for the
 * programs written against it. */
int pat_reduce_clairvoyant_with(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, int root,
                                MPI_Comm comm, const double *arrivals,
                                double round_cost);

/* inoutbuf = inbuf op inoutbuf on count elements, exactly as every
 * patreduce algorithm combines: PMPI_Reduce_local, and in the SimGrid SMPI
 * build also gamma * bytes of simulated time (gamma from PAT_REDUCE_MODEL,
 * else CURIE's).  For tools that time the combine (patcalibrate).  Returns
 * an MPI error code (MPI_ERR_COUNT for count < 0); count 0 does nothing. */
int pat_reduce_local(const void *inbuf, void *inoutbuf, int count,
                     MPI_Datatype datatype, MPI_Op op);

/* Name of an algorithm ("binomial"), or NULL for an invalid id. */
const char *pat_reduce_algorithm_name(pat_reduce_alg alg);

/* One-line description of an algorithm, or NULL for an invalid id. */
const char *pat_reduce_algorithm_description(pat_reduce_alg alg);

/* Looks an algorithm up by name, case-insensitively.
 * Returns PAT_SUCCESS or PAT_ERR_UNKNOWN_ALGORITHM. */
int pat_reduce_algorithm_lookup(const char *name, pat_reduce_alg *alg);

/* The algorithm that served the last reduction on comm on this rank (after
 * any fallback).  Returns PAT_SUCCESS, or PAT_ERR_NO_CALL_YET. */
int pat_reduce_last_algorithm(MPI_Comm comm, pat_reduce_alg *alg);

/* Re-reads the PAT_REDUCE_* environment variables (they are read once, at
 * the first call).  Collective in spirit: call it on every rank. */
void pat_reduce_config_reload(void);

#ifdef __cplusplus
}
#endif

#endif /* PAT_REDUCE_H */
