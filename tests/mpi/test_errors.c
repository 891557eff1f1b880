/*
 * Bad input gets a clear error, never a hang, a crash or a wrong result.
 *
 *   test_errors args   every kind of bad argument returns its MPI error
 *                      class under MPI_ERRORS_RETURN, with a message naming
 *                      the argument; valid calls still work afterwards
 *   test_errors env    run with a bad PAT_REDUCE_* variable: every call
 *                      returns MPI_ERR_ARG and the message, printed once,
 *                      names the variable, the value and the valid values;
 *                      a bad value the default algorithm does not read
 *                      (segments, model file) is said once and ignored,
 *                      and fails the calls of an algorithm that reads it
 *   test_errors handler  MPI_COMM_WORLD and MPI_COMM_SELF stay fatal: an
 *                      op not defined on a datatype and an uncommitted
 *                      datatype come back with MPI's class on the caller's
 *                      MPI_ERRORS_RETURN communicator, no abort
 *   test_errors fatal  a bad root under MPI_ERRORS_ARE_FATAL aborts the job
 *                      (tests/mpi/expect_abort.sh checks that it does)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "reduce/pat_reduce.h"

static int failures = 0, checks = 0;
static int rank, size;

static void check(int ok, const char *what) {
  checks++;
  if (!ok) {
    failures++;
    fprintf(stderr, "test_errors: rank %d: FAILED: %s\n", rank, what);
  }
}

static int error_class(int rc) {
  int cls = rc;
  if (rc != MPI_SUCCESS)
    MPI_Error_class(rc, &cls);
  return cls;
}

/* Runs a reduction with stderr captured into text (at most len bytes). */
static int capture(char *text, size_t len, pat_reduce_alg alg, int use_env,
                   const void *sb, void *rb, int count, MPI_Datatype dt,
                   MPI_Op op, int root, MPI_Comm comm) {
  char path[] = "/tmp/patreduce_errXXXXXX";
  int fd = mkstemp(path), saved = dup(2), rc;
  ssize_t n;
  fflush(stderr);
  dup2(fd, 2);
  rc = use_env ? pat_reduce(sb, rb, count, dt, op, root, comm)
               : pat_reduce_using(alg, sb, rb, count, dt, op, root, comm);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  lseek(fd, 0, SEEK_SET);
  n = read(fd, text, len - 1);
  text[n > 0 ? n : 0] = '\0';
  close(fd);
  unlink(path);
  return rc;
}

static void expect(int cls, const char *msg, pat_reduce_alg alg, const void *sb,
                   void *rb, int count, MPI_Datatype dt, MPI_Op op, int root,
                   MPI_Comm comm, const char *what) {
  char text[2048], line[2300];
  int rc =
      capture(text, sizeof text, alg, 0, sb, rb, count, dt, op, root, comm);
  snprintf(line, sizeof line, "%s: class %d (want %d), message \"%s\"", what,
           error_class(rc), cls, text);
  check(error_class(rc) == cls, line);
  /* The message is printed once per kind of error, so only check it when
   * one was printed; the first case of each kind must print one. */
  if (msg != NULL)
    check(strstr(text, msg) != NULL, line);
}

static void valid_call_still_works(MPI_Comm comm, const char *what) {
  int csize, crank, in, out = -1;
  MPI_Comm_size(comm, &csize);
  MPI_Comm_rank(comm, &crank);
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++) {
    in = crank + 1;
    int rc = pat_reduce_using((pat_reduce_alg)a, &in, &out, 1, MPI_INT, MPI_SUM,
                              0, comm);
    check(rc == MPI_SUCCESS, what);
    if (crank == 0)
      check(out == csize * (csize + 1) / 2, what);
  }
}

/* Affine maps x -> a x + b as (a, b) pairs; op(in, inout) makes inout
 * in o inout, so a reduction composes the ranks' maps in rank order (not
 * commutative). */
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt) {
  double *f = in, *g = inout;
  (void)dt;
  for (int i = 0; i < *len; i++, f += 2, g += 2) {
    g[1] = f[0] * g[1] + f[1];
    g[0] = f[0] * g[0];
  }
}

static void add_pairs(void *in, void *inout, int *len, MPI_Datatype *dt) {
  double *f = in, *g = inout;
  (void)dt;
  for (int i = 0; i < 2 * *len; i++)
    g[i] += f[i];
}

/* The argument checks remember the facts of the last communicator and
 * (datatype, op) pair: they must never outlive a handle.  An op refused
 * for a datatype stays refused after a good call with the datatype;
 * a user type or op freed and created anew (Open MPI tends to hand out
 * the same handle) is read anew: the commutative sum's facts would let
 * ring and butterfly reorder the non-commutative composition. */
static void facts_follow_handles(MPI_Comm comm) {
  double x = rank + 1, y = 0, in[2] = {2, rank + 1}, out[2], a = 1, b = 0;
  int root = size - 1;
  MPI_Datatype pair;
  MPI_Op op;
  check(pat_reduce_binomial(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, comm) ==
                MPI_SUCCESS &&
            (rank != 0 || y == size * (size + 1) / 2.0),
        "sum of doubles");
  expect(MPI_ERR_OP, NULL, PAT_REDUCE_ALG_BINOMIAL, &x, &y, 1, MPI_DOUBLE,
         MPI_BAND, 0, comm, "bitwise and on doubles after a sum of doubles");
  for (int r = 0; r < size; r++) { /* (2, r + 1) composed in rank order */
    b = a * (r + 1) + b;
    a *= 2;
  }
  for (int round = 0; round < 2; round++) {
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(round == 0 ? add_pairs : compose, round == 0, &op);
    for (int k = 0; k < PAT_REDUCE_ALG_COUNT; k++) {
      char what[128];
      int rc;
      out[0] = out[1] = -1;
      rc = pat_reduce_using((pat_reduce_alg)k, in, out, 1, pair, op, root,
                            comm);
      snprintf(what, sizeof what, "%s with a %s user op on a new handle",
               pat_reduce_algorithm_name((pat_reduce_alg)k),
               round == 0 ? "commutative" : "non-commutative");
      check(rc == MPI_SUCCESS &&
                (rank != root ||
                 (round == 0 ? out[0] == 2.0 * size &&
                                   out[1] == size * (size + 1) / 2.0
                             : out[0] == a && out[1] == b)),
            what);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&pair);
  }
}

static void test_args(void) {
  int in[4] = {1, 2, 3, 4}, out[4];
  int root = size - 1;
  pat_reduce_alg alg = PAT_REDUCE_ALG_BINOMIAL, last;
  MPI_Comm dup;

  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  check(pat_reduce_last_algorithm(dup, &last) == PAT_ERR_NO_CALL_YET,
        "no call yet");

  /* errors every rank sees alike */
  expect(MPI_ERR_COUNT, "count=-1 is negative", alg, in, out, -1, MPI_INT,
         MPI_SUM, 0, dup, "negative count");
  expect(MPI_ERR_ROOT, "root=", alg, in, out, 1, MPI_INT, MPI_SUM, size, dup,
         "root too large");
  expect(MPI_ERR_ROOT, NULL, alg, in, out, 1, MPI_INT, MPI_SUM, -1, dup,
         "negative root");
  expect(MPI_ERR_TYPE, "datatype is MPI_DATATYPE_NULL", alg, in, out, 1,
         MPI_DATATYPE_NULL, MPI_SUM, 0, dup, "null datatype");
  expect(MPI_ERR_OP, "op is MPI_OP_NULL", alg, in, out, 1, MPI_INT, MPI_OP_NULL,
         0, dup, "null op");
  expect(MPI_ERR_OP, NULL, alg, in, out, 1, MPI_DOUBLE, MPI_BAND, 0, dup,
         "bitwise and on doubles");
  expect(MPI_ERR_COMM, "comm is MPI_COMM_NULL", alg, in, out, 1, MPI_INT,
         MPI_SUM, 0, MPI_COMM_NULL, "null communicator");
  expect(MPI_ERR_BUFFER, "sendbuf is NULL", alg, NULL, out, 2, MPI_INT, MPI_SUM,
         0, dup, "null send buffer");
  expect(MPI_ERR_ARG, "algorithm id 99 is not an algorithm", (pat_reduce_alg)99,
         in, out, 1, MPI_INT, MPI_SUM, 0, dup, "bad algorithm id");
  /* MPI_IN_PLACE on non-roots; the root fails too, for a NULL recvbuf */
  expect(MPI_ERR_BUFFER, NULL, alg, MPI_IN_PLACE, NULL, 1, MPI_INT, MPI_SUM,
         root, dup, "in place off the root, or null recvbuf at root");
  /* errors only one rank can see: on MPI_COMM_SELF */
  expect(MPI_ERR_BUFFER, NULL, alg, in, in, 1, MPI_INT, MPI_SUM, 0,
         MPI_COMM_SELF, "aliased buffers at the root");
  expect(MPI_ERR_BUFFER, NULL, alg, in, NULL, 1, MPI_INT, MPI_SUM, 0,
         MPI_COMM_SELF, "null recvbuf at the root");
  /* count 0 needs no buffers at all */
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
    check(pat_reduce_using((pat_reduce_alg)a, NULL, NULL, 0, MPI_INT, MPI_SUM,
                           root, dup) == MPI_SUCCESS,
          "count 0 with NULL buffers");

  /* the oracle: no arrival times, bad ones, or no round cost known yet */
  {
    double *arr = calloc((size_t)size, sizeof *arr);
    int x = rank + 1, y = 0;
    MPI_Comm fresh;
    MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
    MPI_Comm_set_errhandler(fresh, MPI_ERRORS_RETURN);
    check(error_class(pat_reduce_clairvoyant_with(&x, &y, 1, MPI_INT, MPI_SUM,
                                                  0, fresh, NULL, 1e-5)) ==
              MPI_ERR_ARG,
          "oracle without arrival times");
    arr[size - 1] = INFINITY;
    check(error_class(pat_reduce_clairvoyant_with(
              &x, &y, 1, MPI_INT, MPI_SUM, 0, fresh, arr, 1e-5)) == MPI_ERR_ARG,
          "oracle with an infinite arrival time");
    arr[size - 1] = 0;
    check(error_class(pat_reduce_clairvoyant_with(
              &x, &y, 1, MPI_INT, MPI_SUM, 0, fresh, arr, 0)) == MPI_ERR_ARG,
          "oracle asking for a round cost before one is measured");
    /* clairvoyant calls measure one (it reaches every rank L+1 calls later) */
    for (int k = 0; k < 4; k++)
      pat_reduce_clairvoyant(&x, &y, 1, MPI_INT, MPI_SUM, 0, fresh);
    y = 0;
    check(pat_reduce_clairvoyant_with(&x, &y, 1, MPI_INT, MPI_SUM, 0, fresh,
                                      arr, 0) == MPI_SUCCESS &&
              (rank != 0 || y == size * (size + 1) / 2),
          "oracle with the measured round cost");
    MPI_Comm_free(&fresh);
    free(arr);
  }

  facts_follow_handles(dup);
  valid_call_still_works(dup, "valid call after errors");
  valid_call_still_works(MPI_COMM_SELF, "valid call on self after errors");
  /* the last call asked for auto (the last row): the row it picked ran */
  check(pat_reduce_last_algorithm(dup, &last) == PAT_SUCCESS &&
            PAT_REDUCE_ALG_COUNT - 1 == PAT_REDUCE_ALG_AUTO &&
            last >= 0 && last < PAT_REDUCE_ALG_AUTO,
        "last algorithm is the one that ran");
  check(pat_reduce_last_algorithm(MPI_COMM_NULL, &last) == PAT_ERR_INVALID_ARG,
        "last algorithm of MPI_COMM_NULL");
  MPI_Comm_free(&dup);
  /* pat_reduce_local: combines, refuses a negative count, count 0 is a
   * no-op */
  {
    int in[2] = {3, 4}, io[2] = {10, 20};
    check(pat_reduce_local(in, io, 2, MPI_INT, MPI_SUM) == MPI_SUCCESS &&
              io[0] == 13 && io[1] == 24,
          "pat_reduce_local sums");
    check(pat_reduce_local(in, io, -1, MPI_INT, MPI_SUM) == MPI_ERR_COUNT,
          "pat_reduce_local count -1 gives MPI_ERR_COUNT");
    check(pat_reduce_local(in, io, 0, MPI_INT, MPI_SUM) == MPI_SUCCESS &&
              io[0] == 13,
          "pat_reduce_local count 0 leaves the buffer");
  }
}

/* MPI_COMM_WORLD and MPI_COMM_SELF keep MPI_ERRORS_ARE_FATAL; the caller's
 * communicator returns errors.  Errors that only MPI itself can find (an
 * op not defined on a datatype, an uncommitted datatype) must come back
 * with MPI's class through the caller's handler, not abort the job
 * through the handler of the communicator-less query that finds them. */
static void test_handler(void) {
  double d[2] = {1, 2}, e[2];
  MPI_Datatype loose;
  MPI_Op op;
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  expect(MPI_ERR_OP, "op is not defined for datatype", PAT_REDUCE_ALG_BINOMIAL,
         d, e, 1, MPI_DOUBLE, MPI_BAND, 0, dup,
         "bitwise and on doubles under a fatal MPI_COMM_WORLD");
  MPI_Type_contiguous(2, MPI_DOUBLE, &loose); /* never committed */
  MPI_Op_create(add_pairs, 1, &op);
  expect(MPI_ERR_TYPE, NULL, PAT_REDUCE_ALG_BINOMIAL, d, e, 1, loose, op, 0,
         dup, "an uncommitted datatype under a fatal MPI_COMM_WORLD");
  MPI_Op_free(&op);
  MPI_Type_free(&loose);
  valid_call_still_works(dup, "valid call after returned errors");
  MPI_Comm_free(&dup);
}

/* A bad value only some algorithms read: the default algorithm's calls
 * (binomial) run, right, rank 0 saying once that it ignores the value; a
 * pipeline call, which reads it, fails with the message. */
static void test_env_unused(const char *want) {
  char text[2048];
  int in = 1, out = 0, rc;
  for (int call = 0; call < 2; call++) {
    out = 0;
    rc = capture(text, sizeof text, 0, 1, &in, &out, 1, MPI_INT, MPI_SUM, 0,
                 MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, "a bad value binomial does not read: call runs");
    check(rank != 0 || out == size, "... and its result is right");
    check((strstr(text, want) != NULL) ==
              (rank == 0 && call == 0),
          "... rank 0 names the value once");
    check(rank != 0 || call > 0 ||
              strstr(text, "binomial does not use it, so it is ignored") != NULL,
          "... and says it is ignored");
  }
  rc = capture(text, sizeof text, PAT_REDUCE_ALG_PIPELINE, 0, &in, &out, 1,
               MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  check(error_class(rc) == MPI_ERR_ARG, "pipeline reads it: MPI_ERR_ARG");
  check(strstr(text, want) != NULL, want);
}

static void test_env(void) {
  char text[2048], want[512];
  int in = 1, out = 0, rc;
  const char *alg = getenv("PAT_REDUCE_ALGORITHM");
  const char *verbose = getenv("PAT_REDUCE_VERBOSE");
  const char *segments = getenv("PAT_REDUCE_SEGMENTS");
  const char *model = getenv("PAT_REDUCE_MODEL");

  if (alg != NULL) {
    snprintf(want, sizeof want,
             "PAT_REDUCE_ALGORITHM=%s is not an "
             "algorithm; valid: ",
             alg);
    for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++) {
      strcat(want, pat_reduce_algorithm_name((pat_reduce_alg)a));
      strcat(want, a + 1 < PAT_REDUCE_ALG_COUNT ? ", " : "");
    }
  } else if (segments != NULL || model != NULL) {
    if (segments != NULL)
      snprintf(want, sizeof want,
               "PAT_REDUCE_SEGMENTS=%s is not a segment count; valid: 0 "
               "(automatic) or 1..16384",
               segments);
    else
      snprintf(want, sizeof want, "PAT_REDUCE_MODEL=%s cannot be opened",
               model);
    test_env_unused(want);
    return;
  } else {
    snprintf(want, sizeof want,
             "PAT_REDUCE_VERBOSE=%s is not an integer in 0..3",
             verbose ? verbose : "(unset)");
  }
  rc = capture(text, sizeof text, 0, 1, &in, &out, 1, MPI_INT, MPI_SUM, 0,
               MPI_COMM_WORLD);
  check(error_class(rc) == MPI_ERR_ARG, "bad environment gives MPI_ERR_ARG");
  check(strstr(text, want) != NULL, want);
  /* a second call fails alike but does not repeat the message */
  rc = capture(text, sizeof text, 0, 1, &in, &out, 1, MPI_INT, MPI_SUM, 0,
               MPI_COMM_WORLD);
  check(error_class(rc) == MPI_ERR_ARG, "second call fails too");
  check(strstr(text, want) == NULL, "message printed only once");
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "args";
  int total[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (strcmp(mode, "fatal") == 0) {
    int in = 1, out;
    pat_reduce(&in, &out, 1, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD);
    fprintf(stderr, "test_errors: a fatal error handler returned\n");
    MPI_Finalize();
    return 0; /* the test expects a failure: reaching here passes nothing */
  }
  if (strcmp(mode, "handler") != 0) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  }
  if (strcmp(mode, "handler") == 0)
    test_handler();
  else if (strcmp(mode, "env") == 0)
    test_env();
  else
    test_args();
  total[0] = checks - failures;
  total[1] = failures;
  MPI_Allreduce(MPI_IN_PLACE, total, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("test_errors %s: %d passed, %d failed\n", mode, total[0], total[1]);
  MPI_Finalize();
  return total[1] != 0;
}
