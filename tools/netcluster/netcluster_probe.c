/*
 * netcluster_probe: a tiny MPI program that checks an emulated cluster made by
 * tools/netcluster/netcluster (and works under a plain mpirun as well).
 *
 * Every rank reports its rank, host name and the 198.18.0.0/15 address of the
 * namespace ("host") it runs in. Then it checks that
 *   - the shared-memory communicator (MPI_COMM_TYPE_SHARED) holds exactly the
 *     ranks that share its address, i.e. Open MPI's idea of a node matches the
 *     emulated hosts (ranks of one host talk through vader, others through TCP
 *     over the shaped links);
 *   - a ping-pong and a bidirectional MPI_Sendrecv of --bytes between rank 0 and
 *     the last rank deliver the data intact, and reports the bandwidth of both.
 *     Ping-pong moves one direction at a time; sendrecv moves both at once, so
 *     its figure is per direction and shows that both directions are shaped.
 *
 * Usage: netcluster_probe [--bytes N] [--iters N] [--min-mbit X] [--max-mbit Y]
 *   --min-mbit/--max-mbit fail the run if a bandwidth between two different
 *   hosts falls outside [X, Y] Mbit/s (skipped when rank 0 and the last rank
 *   share a host). Exit code 0 on success, 1 on any failure (on every rank).
 */
#define _DEFAULT_SOURCE /* getifaddrs, gethostname, nanosleep under strict -std=c11 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ADDR_LEN 16 /* "255.255.255.255" + NUL */
#define NAME_LEN 64

/* First IPv4 address of this network namespace inside 198.18.0.0/15, or "none". */
static void cluster_address(char out[ADDR_LEN]) {
  struct ifaddrs *list = NULL;
  snprintf(out, ADDR_LEN, "none");
  if (getifaddrs(&list) != 0) return;
  for (struct ifaddrs *it = list; it; it = it->ifa_next) {
    if (!it->ifa_addr || it->ifa_addr->sa_family != AF_INET) continue;
    const struct in_addr a = ((const struct sockaddr_in *)it->ifa_addr)->sin_addr;
    if ((ntohl(a.s_addr) & 0xFFFE0000u) == 0xC6120000u) { /* 198.18.0.0/15 */
      inet_ntop(AF_INET, &a, out, ADDR_LEN);
      break;
    }
  }
  freeifaddrs(list);
}

/* Pattern that depends on the byte index, the sender and the round, so a stale
 * or misrouted buffer is caught. */
static void fill(unsigned char *buf, size_t n, int sender, int round) {
  for (size_t i = 0; i < n; ++i) buf[i] = (unsigned char)((i * 131u) ^ (i >> 8) ^ (unsigned)(sender * 17 + round * 29));
}

static int check(const unsigned char *buf, size_t n, int sender, int round) {
  for (size_t i = 0; i < n; ++i)
    if (buf[i] != (unsigned char)((i * 131u) ^ (i >> 8) ^ (unsigned)(sender * 17 + round * 29))) return 0;
  return 1;
}

static double arg_double(int argc, char **argv, int *i) {
  if (*i + 1 >= argc) {
    fprintf(stderr, "netcluster_probe: %s needs a value\n", argv[*i]);
    exit(2);
  }
  return atof(argv[++*i]);
}

int main(int argc, char **argv) {
  size_t bytes = 4u << 20; /* 4 MiB */
  int iters = 3;
  double min_mbit = 0.0, max_mbit = 0.0; /* 0: no bound */
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--bytes")) bytes = (size_t)arg_double(argc, argv, &i);
    else if (!strcmp(argv[i], "--iters")) iters = (int)arg_double(argc, argv, &i);
    else if (!strcmp(argv[i], "--min-mbit")) min_mbit = arg_double(argc, argv, &i);
    else if (!strcmp(argv[i], "--max-mbit")) max_mbit = arg_double(argc, argv, &i);
    else {
      fprintf(stderr, "usage: %s [--bytes N] [--iters N] [--min-mbit X] [--max-mbit Y]\n", argv[0]);
      return 2;
    }
  }
  if (bytes == 0 || bytes > (size_t)INT32_MAX || iters < 1) {
    fprintf(stderr, "netcluster_probe: need 0 < --bytes <= 2^31-1 and --iters >= 1\n");
    return 2;
  }

  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int failed = 0;

  /* Who am I and where. */
  char addr[ADDR_LEN], name[NAME_LEN];
  cluster_address(addr);
  if (gethostname(name, sizeof name) != 0) snprintf(name, sizeof name, "?");
  name[NAME_LEN - 1] = '\0';

  char *addrs = calloc((size_t)size, ADDR_LEN);
  char *names = calloc((size_t)size, NAME_LEN);
  MPI_Allgather(addr, ADDR_LEN, MPI_CHAR, addrs, ADDR_LEN, MPI_CHAR, MPI_COMM_WORLD);
  MPI_Allgather(name, NAME_LEN, MPI_CHAR, names, NAME_LEN, MPI_CHAR, MPI_COMM_WORLD);

  /* Node locality as MPI sees it must match the emulated hosts. */
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_size;
  MPI_Comm_size(node, &node_size);
  int *node_world = malloc(sizeof(int) * (size_t)node_size), *node_local = malloc(sizeof(int) * (size_t)node_size);
  MPI_Group wg, ng;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Comm_group(node, &ng);
  for (int i = 0; i < node_size; ++i) node_local[i] = i;
  MPI_Group_translate_ranks(ng, node_size, node_local, wg, node_world);
  int same_addr = 0;
  for (int r = 0; r < size; ++r) same_addr += !strcmp(addrs + (size_t)r * ADDR_LEN, addr);
  int locality_ok = (same_addr == node_size);
  for (int i = 0; i < node_size; ++i)
    if (strcmp(addrs + (size_t)node_world[i] * ADDR_LEN, addr)) locality_ok = 0;
  if (!locality_ok) failed = 1;
  int *node_sizes = malloc(sizeof(int) * (size_t)size), *locality = malloc(sizeof(int) * (size_t)size);
  MPI_Gather(&node_size, 1, MPI_INT, node_sizes, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Gather(&locality_ok, 1, MPI_INT, locality, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; ++r)
      printf("probe: rank %d/%d host %s addr %s node_ranks %d%s\n", r, size, names + (size_t)r * NAME_LEN,
             addrs + (size_t)r * ADDR_LEN, node_sizes[r],
             locality[r] ? "" : "  <-- MPI node locality does not match the host addresses");
    fflush(stdout);
  }

  /* Bandwidth between rank 0 and the last rank. */
  const int peer = size - 1;
  if (size > 1 && (rank == 0 || rank == peer)) {
    const int other = rank == 0 ? peer : 0;
    const int cross = strcmp(addrs, addrs + (size_t)peer * ADDR_LEN) != 0;
    unsigned char *sbuf = malloc(bytes), *rbuf = malloc(bytes);
    if (!sbuf || !rbuf) {
      fprintf(stderr, "probe: rank %d cannot allocate %zu bytes\n", rank, bytes);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const int n = (int)bytes;
    int bad = 0;
    double t_pp = 0.0, t_sr = 0.0;
    /* Round 0 is a warm-up (connection setup), not timed. */
    for (int round = 0; round <= iters; ++round) {
      fill(sbuf, bytes, rank, round);
      memset(rbuf, 0, bytes);
      /* Ping-pong: rank 0 -> peer, then peer -> rank 0. The empty sendrecv
       * lines both sides up before the clock starts. */
      MPI_Sendrecv(NULL, 0, MPI_BYTE, other, 9, NULL, 0, MPI_BYTE, other, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double t0 = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(sbuf, n, MPI_BYTE, other, 1, MPI_COMM_WORLD);
        MPI_Recv(rbuf, n, MPI_BYTE, other, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(rbuf, n, MPI_BYTE, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(sbuf, n, MPI_BYTE, other, 2, MPI_COMM_WORLD);
      }
      double t1 = MPI_Wtime();
      if (round > 0) t_pp += t1 - t0;
      if (!check(rbuf, bytes, other, round)) bad = 1;
      /* Bidirectional: both send at once. */
      memset(rbuf, 0, bytes);
      MPI_Sendrecv(NULL, 0, MPI_BYTE, other, 9, NULL, 0, MPI_BYTE, other, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      t0 = MPI_Wtime();
      MPI_Sendrecv(sbuf, n, MPI_BYTE, other, 3, rbuf, n, MPI_BYTE, other, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      t1 = MPI_Wtime();
      if (round > 0) t_sr += t1 - t0;
      if (!check(rbuf, bytes, other, round)) bad = 1;
    }
    if (bad) {
      fprintf(stderr, "probe: rank %d received corrupted data from rank %d\n", rank, other);
      failed = 1;
    }
    /* Report the slower side's view of the time. */
    double times[2] = {t_pp, t_sr}, tmax[2] = {t_pp, t_sr};
    if (rank == 0) {
      double other_times[2];
      MPI_Recv(other_times, 2, MPI_DOUBLE, other, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (other_times[0] > tmax[0]) tmax[0] = other_times[0];
      if (other_times[1] > tmax[1]) tmax[1] = other_times[1];
      /* Ping-pong moves 2*bytes per round, one direction at a time; sendrecv
       * moves bytes per direction per round, both at once. */
      const double pp = 2.0 * (double)bytes * iters * 8.0 / tmax[0] / 1e6;
      const double sr = (double)bytes * iters * 8.0 / tmax[1] / 1e6;
      printf("probe: rank 0 <-> rank %d (%s): %zu bytes x %d: ping-pong %.1f Mbit/s, sendrecv %.1f Mbit/s per direction\n",
             peer, cross ? "different hosts" : "same host", bytes, iters, pp, sr);
      if (cross) {
        const double bw[2] = {pp, sr};
        for (int k = 0; k < 2; ++k) {
          if (min_mbit > 0 && bw[k] < min_mbit) {
            printf("probe: FAIL: %s bandwidth %.1f Mbit/s below --min-mbit %.1f\n", k ? "sendrecv" : "ping-pong", bw[k],
                   min_mbit);
            failed = 1;
          }
          if (max_mbit > 0 && bw[k] > max_mbit) {
            printf("probe: FAIL: %s bandwidth %.1f Mbit/s above --max-mbit %.1f (is the link shaped?)\n",
                   k ? "sendrecv" : "ping-pong", bw[k], max_mbit);
            failed = 1;
          }
        }
      } else if (min_mbit > 0 || max_mbit > 0) {
        printf("probe: note: rank 0 and rank %d share a host, bandwidth bounds not checked\n", peer);
      }
      fflush(stdout);
    } else {
      MPI_Send(times, 2, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
    }
    free(sbuf);
    free(rbuf);
  }

  /* Ranks not in the measurement wait here without spinning: MPI polls while it
   * waits, and on a machine with few cores their polling would steal the CPU the
   * two measuring ranks and the kernel's network path need. */
  MPI_Request idle;
  MPI_Ibarrier(MPI_COMM_WORLD, &idle);
  for (int done = 0; !done;) {
    MPI_Test(&idle, &done, MPI_STATUS_IGNORE);
    if (!done) nanosleep(&(struct timespec){.tv_sec = 0, .tv_nsec = 1000000}, NULL);
  }
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("probe: %s\n", any_failed ? "FAILED" : "OK");

  MPI_Group_free(&wg);
  MPI_Group_free(&ng);
  MPI_Comm_free(&node);
  free(addrs);
  free(names);
  free(node_world);
  free(node_local);
  free(node_sizes);
  free(locality);
  MPI_Finalize();
  return any_failed ? 1 : 0;
}
