/*
 * Buffers and local operations.  Temporary buffers are sized by the
 * datatype's true extent so that derived datatypes with gaps or a nonzero
 * lower bound work; every combine goes through PMPI_Reduce_local so that
 * every predefined and user-defined op and datatype is supported.
 *
 * Under SimGrid SMPI (PATREDUCE_SMPI) pat_local_combine, the one place
 * through which every algorithm combines, also charges gamma * bytes of
 * simulated time, so that simulated runs pay for the combine as the
 * round-cost model d = alpha + m (beta + gamma) says; SMPI's own
 * collectives combine for free.  gamma comes from the PAT_REDUCE_MODEL
 * file, else the CURIE value of the reference thesis.  smpi_execute_benched
 * charges exactly that time (smpi_execute would scale it by
 * smpi/host-speed and drop it below smpi/cpu-threshold); with
 * --cfg=smpi/simulate-computation:no nothing else is charged and runs are
 * exactly reproducible.  Temporaries above PAT_REDUCE_SMPI_SHARED_ABOVE
 * bytes (each, not their sum) come from SMPI_SHARED_MALLOC there (one block for
 * all ranks), so that 128 simulated ranks can reduce 40 MiB on a small machine:
 * the simulated time is right, the results are not.
 *
 * The executor's temporaries come in one block from the communicator's
 * scratch (pat_tmpbufs_alloc; why: exec.c, "Memory").
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pat_internal.h"

#ifdef PATREDUCE_SMPI
#include <smpi/smpi.h>

/* Charges the simulated time of combining count elements of datatype. */
static int smpi_charge_combine(int count, MPI_Datatype datatype) {
  double gamma = pat_config_model(pat_config_get())->gamma;
  MPI_Count size = 0;
  int rc = PMPI_Type_size_x(datatype, &size);
  if (rc == MPI_SUCCESS && size > 0 && gamma > 0)
    smpi_execute_benched(gamma * (double)size * (double)count);
  return rc;
}
#endif

/* Where a temporary's block came from. */
enum { TMP_NONE = 0, TMP_MALLOC, TMP_SHARED, TMP_SCRATCH };

/* Bytes that count (>= 1) elements of a datatype span: true_extent +
 * (count - 1) * extent, starting true_lb bytes after element 0. */
static size_t span(int count, const pat_type_info *type) {
  return (size_t)type->true_extent + (size_t)(count - 1) * (size_t)type->extent;
}

/* Whether temporaries of which the largest has largest bytes are shared
 * by all ranks: above PAT_REDUCE_SMPI_SHARED_ABOVE in the SMPI build (then
 * the message is too, and its results are not checked), never otherwise.
 * One temporary decides, not their sum: at P = 1024 a 1 MiB binomial's two
 * 1 MiB temporaries were shared under --shared-above 1M, and its results
 * were wrong. */
static int shared(size_t largest) {
#ifdef PATREDUCE_SMPI
  long above = pat_config_get()->smpi_shared_above;
  return above > 0 && largest > (size_t)above;
#else
  (void)largest;
  return 0;
#endif
}

/* A fresh block of bytes for temporaries of which the largest has
 * largest bytes: SMPI_SHARED_MALLOC when they are shared(), else malloc. */
static int block_alloc(pat_tmpbuf *buf, size_t bytes, size_t largest) {
  (void)largest; /* shared() is never true outside the SMPI build */
#ifdef PATREDUCE_SMPI
  if (shared(largest)) {
    buf->raw = SMPI_SHARED_MALLOC(bytes);
    buf->how = TMP_SHARED;
  } else
#endif
  {
    buf->raw = malloc(bytes > 0 ? bytes : 1);
    buf->how = TMP_MALLOC;
  }
  if (buf->raw == NULL)
    buf->how = TMP_NONE;
  return buf->raw != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int pat_tmpbuf_alloc(pat_tmpbuf *buf, int count, MPI_Datatype datatype) {
  pat_type_info type;
  /* an invalid datatype is reported even for no buffer */
  int rc = pat_type_info_get(datatype, &type);
  *buf = (pat_tmpbuf){.how = TMP_NONE};
  if (rc == MPI_SUCCESS && count > 0) {
    size_t bytes = span(count, &type);
    rc = block_alloc(buf, bytes, bytes);
  }
  if (rc == MPI_SUCCESS && count > 0)
    buf->base = pat_shift(buf->raw, -type.true_lb);
  return rc;
}

/* Buffers inside a shared block start at multiples of this. */
#define TMP_ALIGN 64

static size_t align_up(size_t b) {
  return (b + TMP_ALIGN - 1) / TMP_ALIGN * TMP_ALIGN;
}

int pat_tmpbufs_alloc(pat_comm_state *st, int n, const int *counts,
                      const pat_type_info *type, pat_tmpbuf *bufs) {
  size_t total = 0, largest = 0, at[PAT_SLOT_MAX];
  char *block = NULL;
  int rc = MPI_SUCCESS;
  for (int k = 0; k < n; k++)
    bufs[k] = (pat_tmpbuf){.how = TMP_NONE};
  if (n < 1 || n > PAT_SLOT_MAX) {
    rc = MPI_ERR_INTERN;
    goto out;
  }
  for (int k = 0; k < n; k++) {
    at[k] = total;
    /* an empty range still needs an address: one element's room */
    if (counts[k] >= 0) {
      size_t b = span(counts[k] > 0 ? counts[k] : 1, type);
      total += align_up(b);
      largest = b > largest ? b : largest;
    }
  }
  if (total == 0)
    goto out;
  /* shared blocks are not kept: each call gets its own */
  if (st != NULL && !shared(largest))
    block = pat_comm_state_scratch_take(st, PAT_SCRATCH_DATA, total);
  if (block != NULL) {
    bufs[0].raw = block;
    bufs[0].how = TMP_SCRATCH;
    bufs[0].pool = st;
  } else {
    rc = block_alloc(&bufs[0], total, largest);
    block = bufs[0].raw;
  }
  for (int k = 0; k < n && rc == MPI_SUCCESS; k++)
    if (counts[k] >= 0)
      bufs[k].base = pat_shift(block + at[k], -type->true_lb);
out:
  return rc;
}

void pat_tmpbuf_free(pat_tmpbuf *buf) {
  if (buf != NULL) {
    switch (buf->how) {
#ifdef PATREDUCE_SMPI
    case TMP_SHARED:
      SMPI_SHARED_FREE(buf->raw);
      break;
#endif
    case TMP_SCRATCH:
      pat_comm_state_scratch_give(buf->pool, PAT_SCRATCH_DATA, buf->raw);
      break;
    case TMP_MALLOC:
      free(buf->raw);
      break;
    default:
      break;
    }
    *buf = (pat_tmpbuf){.how = TMP_NONE};
  }
}

/* In integers: base may be NULL (MPI_BOTTOM, absolute addresses) and the
 * address outside any object (a lower bound), which pointer arithmetic may
 * not do. */
char *pat_shift(const void *base, MPI_Aint bytes) {
  return (char *)((uintptr_t)base + (uintptr_t)bytes);
}

char *pat_elem(char *base, int i, MPI_Aint extent) {
  return pat_shift(base, (MPI_Aint)i * extent);
}

const char *pat_celem(const char *base, int i, MPI_Aint extent) {
  return pat_shift(base, (MPI_Aint)i * extent);
}

int pat_type_info_get(MPI_Datatype datatype, pat_type_info *info) {
  int rc = PMPI_Type_size_x(datatype, &info->size);
  if (rc == MPI_SUCCESS)
    rc = PMPI_Type_get_extent(datatype, &info->lb, &info->extent);
  if (rc == MPI_SUCCESS)
    rc =
        PMPI_Type_get_true_extent(datatype, &info->true_lb, &info->true_extent);
  info->contiguous = rc == MPI_SUCCESS && info->size == info->extent &&
                     info->size == info->true_extent && info->lb == 0 &&
                     info->true_lb == 0;
  return rc;
}

/* Remembered facts of one (datatype, op) pair, per thread (not in the SMPI
 * build: its ranks share threads).  Only predefined handles are
 * remembered: they keep their meaning until MPI_Finalize, while a freed
 * user handle may come back for another type or op. */
#ifndef PATREDUCE_SMPI
static _Thread_local struct {
  MPI_Datatype datatype;
  MPI_Op op;
  pat_type_info info;
  int commutative;
  int valid;
} last_pair;
#endif

/* Is op one of MPI's predefined operations?  (A list with a sentinel: the
 * handles are not constant expressions in every MPI.) */
static int op_predefined(MPI_Op op) {
  const MPI_Op ops[] = {MPI_MAX,     MPI_MIN,    MPI_SUM,    MPI_PROD,
                        MPI_LAND,    MPI_BAND,   MPI_LOR,    MPI_BOR,
                        MPI_LXOR,    MPI_BXOR,   MPI_MAXLOC, MPI_MINLOC,
                        MPI_REPLACE, MPI_OP_NULL};
  int k = 0;
  while (ops[k] != MPI_OP_NULL && ops[k] != op)
    k++;
  return op != MPI_OP_NULL && ops[k] == op;
}

int pat_type_op_known(MPI_Datatype datatype, MPI_Op op, pat_type_info *info,
                      int *commutative) {
  int known = 0;
#ifndef PATREDUCE_SMPI
  if (last_pair.valid && last_pair.datatype == datatype && last_pair.op == op) {
    *info = last_pair.info;
    *commutative = last_pair.commutative;
    known = 1;
  }
#else
  (void)datatype;
  (void)op;
  (void)info;
  (void)commutative;
#endif
  return known;
}

void pat_type_op_remember(MPI_Datatype datatype, MPI_Op op,
                          const pat_type_info *info, int commutative) {
#ifndef PATREDUCE_SMPI
  int ni, na, nd, combiner = -1;
  if (!op_predefined(op) ||
      PMPI_Type_get_envelope(datatype, &ni, &na, &nd, &combiner) !=
          MPI_SUCCESS ||
      combiner != MPI_COMBINER_NAMED)
    return;
  last_pair.datatype = datatype;
  last_pair.op = op;
  last_pair.info = *info;
  last_pair.commutative = commutative;
  last_pair.valid = 1;
#else
  (void)datatype;
  (void)op;
  (void)info;
  (void)commutative;
  (void)op_predefined;
#endif
}

int pat_type_is_contiguous(MPI_Datatype datatype, int *contiguous) {
  pat_type_info info;
  int rc = pat_type_info_get(datatype, &info);
  if (rc == MPI_SUCCESS)
    *contiguous = info.contiguous;
  return rc;
}

int pat_local_copy(const void *src, void *dst, int count,
                   MPI_Datatype datatype) {
  pat_type_info type;
  int rc = MPI_SUCCESS;
  if (count > 0 && src != dst)
    rc = pat_type_info_get(datatype, &type);
  if (rc == MPI_SUCCESS && count > 0 && src != dst)
    rc = pat_local_copy_info(src, dst, count, datatype, &type);
  return rc;
}

int pat_local_copy_info(const void *src, void *dst, int count,
                        MPI_Datatype datatype, const pat_type_info *type) {
  int rc = MPI_SUCCESS, packed = 0, pos = 0;
  void *pack = NULL;

  if (count == 0 || src == dst)
    goto out;
  if (type->contiguous) {
    memmove(dst, src, (size_t)type->size * (size_t)count);
    goto out;
  }
  /* Gaps: pack and unpack, which touch only the type's data bytes. */
  rc = PMPI_Pack_size(count, datatype, MPI_COMM_SELF, &packed);
  if (rc != MPI_SUCCESS)
    goto out;
  pack = malloc(packed > 0 ? (size_t)packed : 1);
  if (pack == NULL) {
    rc = MPI_ERR_NO_MEM;
    goto out;
  }
  rc = PMPI_Pack(src, count, datatype, pack, packed, &pos, MPI_COMM_SELF);
  if (rc != MPI_SUCCESS)
    goto out;
  pos = 0;
  rc = PMPI_Unpack(pack, packed, &pos, dst, count, datatype, MPI_COMM_SELF);
out:
  free(pack);
  return rc;
}

int pat_reduce_local(const void *inbuf, void *inoutbuf, int count,
                     MPI_Datatype datatype, MPI_Op op) {
  return count < 0 ? MPI_ERR_COUNT
                   : pat_local_combine(inbuf, inoutbuf, count, datatype, op);
}

int pat_local_combine(const void *in, void *inout, int count,
                      MPI_Datatype datatype, MPI_Op op) {
  int rc = MPI_SUCCESS;
  if (count > 0)
    rc = PMPI_Reduce_local(in, inout, count, datatype, op);
#ifdef PATREDUCE_SMPI
  if (rc == MPI_SUCCESS && count > 0)
    rc = smpi_charge_combine(count, datatype);
#endif
  return rc;
}
