! An ordinary Fortran MPI program that knows nothing of patreduce:
! MPI_REDUCE with every root, a sum and an in-place max, results checked;
! the pmpi_preload_fortran tests run it with the override preloaded.  Built
! twice: with "use mpi", and with "use mpi_f08" (PAT_F08 defined).
program plain_reduce
#ifdef PAT_F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer :: rank, nprocs, root, ierr, bad, mx
  integer(kind=8) :: inv(3), outv(3)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  bad = 0
  do root = 0, nprocs - 1
    inv = [int(rank, 8), int(2 * rank + 1, 8), int(-rank, 8)]
    outv = 0
    call MPI_REDUCE(inv, outv, 3, MPI_INTEGER8, MPI_SUM, root, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS) bad = bad + 1
    if (rank == root) then
      if (outv(1) /= nprocs * (nprocs - 1) / 2 .or. outv(2) /= nprocs * nprocs &
          .or. outv(3) /= -nprocs * (nprocs - 1) / 2) bad = bad + 1
    end if
    mx = rank * 10
    if (rank == root) then
      call MPI_REDUCE(MPI_IN_PLACE, mx, 1, MPI_INTEGER, MPI_MAX, root, MPI_COMM_WORLD, ierr)
      if (mx /= (nprocs - 1) * 10) bad = bad + 1
    else
      call MPI_REDUCE(mx, mx, 1, MPI_INTEGER, MPI_MAX, root, MPI_COMM_WORLD, ierr)
    end if
    if (ierr /= MPI_SUCCESS) bad = bad + 1
  end do
  call MPI_ALLREDUCE(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (bad == 0) then
      print '(a)', 'plain_reduce (Fortran): results ok'
    else
      print '(a, i0)', 'plain_reduce (Fortran): wrong results: ', bad
    end if
  end if
  call MPI_FINALIZE(ierr)
  if (bad /= 0) stop 1
end program plain_reduce
