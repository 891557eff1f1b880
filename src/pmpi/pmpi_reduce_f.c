/*
 * The Fortran MPI_REDUCE override, next to the C one (pmpi_reduce.c):
 * Open MPI's Fortran bindings call PMPI_Reduce directly, so the C override
 * alone never sees a Fortran program's reductions.
 *
 * Entry points, all with Open MPI's Fortran signature (buffers, then
 * INTEGER count, datatype, op, root, comm handles and ierror):
 *  - mpi_reduce_, mpi_reduce__, mpi_reduce, MPI_REDUCE: mpif.h and
 *    `use mpi` under every name mangling a Fortran compiler may use;
 *  - ompi_reduce_f: Open MPI's C implementation behind all of them, which
 *    `use mpi_f08` (mpi_reduce_f08_) calls directly; defining it here
 *    interposes it for that module too.
 * MPICH's Fortran bindings call MPI_Reduce itself, which the C override
 * serves.
 *
 * Handles are converted with MPI_*_f2c; Fortran's MPI_IN_PLACE and
 * MPI_BOTTOM are the addresses of Open MPI's common blocks
 * mpi_fortran_in_place_ and mpi_fortran_bottom_ (weak references: absent
 * in other MPI libraries, where they never match) and become C's.  The
 * result code goes to ierror; errors are raised on the communicator's
 * handler as for C callers (pat_reduce).
 */
#include <stddef.h>

#include <mpi.h>

#include "reduce/pat_reduce.h"

extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));

/* Fortran's sentinel addresses as C's. */
static const void *c_buffer(const void *buf, int in_place_allowed) {
  if (in_place_allowed && &mpi_fortran_in_place_ != NULL &&
      buf == (const void *)&mpi_fortran_in_place_)
    return MPI_IN_PLACE;
  if (&mpi_fortran_bottom_ != NULL && buf == (const void *)&mpi_fortran_bottom_)
    return MPI_BOTTOM;
  return buf;
}

void ompi_reduce_f(char *sendbuf, char *recvbuf, MPI_Fint *count,
                   MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root,
                   MPI_Fint *comm, MPI_Fint *ierr);

void ompi_reduce_f(char *sendbuf, char *recvbuf, MPI_Fint *count,
                   MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root,
                   MPI_Fint *comm, MPI_Fint *ierr) {
  int rc = pat_reduce(c_buffer(sendbuf, 1), (void *)c_buffer(recvbuf, 0),
                      (int)*count, PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op),
                      (int)*root, PMPI_Comm_f2c(*comm));
  if (ierr != NULL)
    *ierr = (MPI_Fint)rc;
}

/* Every mangling of MPI_REDUCE, each a call of the one above. */
#define PAT_FORTRAN_REDUCE(name)                                               \
  void name(char *sendbuf, char *recvbuf, MPI_Fint *count, MPI_Fint *datatype, \
            MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr);     \
  void name(char *sendbuf, char *recvbuf, MPI_Fint *count, MPI_Fint *datatype, \
            MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr) {    \
    ompi_reduce_f(sendbuf, recvbuf, count, datatype, op, root, comm, ierr);    \
  }
PAT_FORTRAN_REDUCE(mpi_reduce_)
PAT_FORTRAN_REDUCE(mpi_reduce__)
PAT_FORTRAN_REDUCE(mpi_reduce)
PAT_FORTRAN_REDUCE(MPI_REDUCE)
#undef PAT_FORTRAN_REDUCE
