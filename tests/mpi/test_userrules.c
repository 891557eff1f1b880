/*
 * PAT_REDUCE_RULES in force under MPI: the test writes a rules file, points
 * PAT_REDUCE_RULES at it before the first call (pat_reduce_config_reload)
 * and checks, through pat_reduce() on MPI_COMM_WORLD (run it with P = 4),
 * that each call is served by its line's algorithm with its line's
 * settings, and that calls no line matches use PAT_REDUCE_ALGORITHM:
 *   8 B         ring        ("* 0-8 ring")
 *   800 B       butterfly   ("* 9-1K butterfly")
 *   2400 B      radixk, RADIXK=2,2 on 4 ranks (runs)
 *   4800 B      radixk, RADIXK=3: not a factorization of 4, so every rank's
 *               call fails with MPI_ERR_ARG (the line's setting, not the
 *               environment's auto, is in force)
 *   8000 B      no line: PAT_REDUCE_ALGORITHM (binomial by default)
 *   8 B, P = 1  on MPI_COMM_SELF: "1 * native" serves it
 * pat_reduce_using names its algorithm and ignores the rules.  Every sum
 * is checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "reduce/pat_reduce.h"

static int rank, size, checks, failures;

static void check(int ok, const char *what, int count) {
  checks++;
  if (!ok) {
    failures++;
    fprintf(stderr, "test_userrules: rank %d: FAILED: %s (count %d)\n", rank,
            what, count);
  }
}

/* pat_reduce of count doubles (rank + i) on comm to root 0; returns its
 * MPI error code and checks the sum where it succeeded. */
static int one(MPI_Comm comm, int count, pat_reduce_alg want) {
  double *in = malloc(sizeof *in * (size_t)count),
         *out = malloc(sizeof *out * (size_t)count);
  int n, r, rc;
  pat_reduce_alg served = PAT_REDUCE_ALG_COUNT;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &r);
  for (int i = 0; i < count; i++)
    in[i] = r + i;
  rc = pat_reduce(in, out, count, MPI_DOUBLE, MPI_SUM, 0, comm);
  if (rc == MPI_SUCCESS) {
    pat_reduce_last_algorithm(comm, &served);
    check(served == want, "served by another algorithm than its line's",
          count);
    for (int i = 0; r == 0 && i < count; i++)
      check(out[i] == (double)n * (n - 1) / 2 + (double)n * i, "wrong sum",
            count);
  }
  free(in);
  free(out);
  return rc;
}

int main(int argc, char **argv) {
  char path[64];
  int fd, total[2], cls = 0, rc;
  const char *text = "# test rules\n"
                     "1        *        native\n"
                     "*        0-8      ring\n"
                     "*        9-1K     butterfly\n"
                     "4        2K-4K    radixk     RADIXK=2,2\n"
                     "4        4K-6K    radixk     RADIXK=3\n";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  /* rank 0 writes the file; every rank names it alike (the agreement
   * compares the name and the contents) */
  if (rank == 0) {
    snprintf(path, sizeof path, "/tmp/pat_userrules_XXXXXX");
    fd = mkstemp(path);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
      perror("test_userrules: rules file");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    close(fd);
  }
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  setenv("PAT_REDUCE_RULES", path, 1);
  pat_reduce_config_reload();

  check(size == 4, "run it with 4 processes", size);
  check(one(MPI_COMM_WORLD, 1, PAT_REDUCE_ALG_RING) == MPI_SUCCESS,
        "8 B: error", 1);
  check(one(MPI_COMM_WORLD, 100, PAT_REDUCE_ALG_BUTTERFLY) == MPI_SUCCESS,
        "800 B: error", 100);
  check(one(MPI_COMM_WORLD, 300, PAT_REDUCE_ALG_RADIXK) == MPI_SUCCESS,
        "2400 B (RADIXK=2,2): error", 300);
  rc = one(MPI_COMM_WORLD, 600, PAT_REDUCE_ALG_RADIXK);
  MPI_Error_class(rc, &cls);
  check(cls == MPI_ERR_ARG, "4800 B (RADIXK=3 on 4 ranks): no MPI_ERR_ARG",
        600);
  check(one(MPI_COMM_WORLD, 1000, PAT_REDUCE_ALG_BINOMIAL) == MPI_SUCCESS,
        "8000 B (no line): error", 1000);
  check(one(MPI_COMM_SELF, 1, PAT_REDUCE_ALG_NATIVE) == MPI_SUCCESS,
        "P = 1: error", 1);
  {
    /* pat_reduce_using ignores the rules */
    double x = rank, y = 0;
    pat_reduce_alg served = PAT_REDUCE_ALG_COUNT;
    check(pat_reduce_using(PAT_REDUCE_ALG_BINOMIAL, &x, &y, 1, MPI_DOUBLE,
                           MPI_SUM, 0, MPI_COMM_WORLD) == MPI_SUCCESS,
          "pat_reduce_using: error", 1);
    pat_reduce_last_algorithm(MPI_COMM_WORLD, &served);
    check(served == PAT_REDUCE_ALG_BINOMIAL, "pat_reduce_using: not its row",
          1);
    check(rank != 0 || y == (double)size * (size - 1) / 2,
          "pat_reduce_using: wrong sum", 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    unlink(path);
  total[0] = checks - failures;
  total[1] = failures;
  MPI_Allreduce(MPI_IN_PLACE, total, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("test_userrules: %d passed, %d failed\n", total[0], total[1]);
  MPI_Finalize();
  return total[1] != 0;
}
