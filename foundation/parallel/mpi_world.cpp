#include "foundation/parallel/mpi_world.hpp"

// The C API only (OpenMPI would pull in its deprecated C++ bindings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <stdexcept>

namespace sdc::mpi {

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

namespace {

int count_of(size_t n) {
  if (n > size_t(INT_MAX)) throw std::runtime_error("MPI: a message of more than 2^31 bytes");
  return int(n);
}

}  // namespace

bool launched_in_job() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS"})
    if (const char* s = std::getenv(v); s && std::atoi(s) > 1) return true;
  return false;
}

void ensure_mpi() {
  int init = 0;
  MPI_Initialized(&init);
  if (init) return;
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  std::atexit([] {
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Finalize();
  });
}

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

bool running() {
  int init = 0;
  MPI_Initialized(&init);
  return init != 0 || launched_in_job();
}

void abort_job(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

void barrier() { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

std::string processor_name() {
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(name, &len);
  return std::string(name, size_t(len));
}

void send(int dest, int tag, const std::vector<uint8_t>& bytes) {
  check(MPI_Send(bytes.data(), count_of(bytes.size()), MPI_BYTE, dest, tag, MPI_COMM_WORLD), "MPI_Send");
}

namespace {
message receive_probed(const MPI_Status& st) {
  message m;
  m.source = st.MPI_SOURCE, m.tag = st.MPI_TAG;
  int n = 0;
  MPI_Get_count(&st, MPI_BYTE, &n);
  m.bytes.resize(size_t(n));
  check(MPI_Recv(m.bytes.data(), n, MPI_BYTE, m.source, m.tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  return m;
}
}  // namespace

bool poll(message* m) {
  int flag = 0;
  MPI_Status st;
  check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
  if (!flag) return false;
  *m = receive_probed(st);
  return true;
}

message receive(int source) {
  MPI_Status st;
  check(MPI_Probe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &st), "MPI_Probe");
  return receive_probed(st);
}

int all_max(int v) {
  int out = v;
  check(MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return out;
}

std::vector<std::string> gather_strings(const std::string& mine) {
  const int n = size(), me = rank();
  int len = count_of(mine.size());
  std::vector<int> lens(static_cast<size_t>(n), 0);
  check(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<int> displs(size_t(n), 0);
  int total = 0;
  for (int r = 0; r < n; ++r) displs[size_t(r)] = total, total += lens[size_t(r)];
  std::string all(size_t(me == 0 ? total : 0), '\0');
  check(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Gatherv");
  std::vector<std::string> out;
  if (me == 0)
    for (int r = 0; r < n; ++r) out.push_back(all.substr(size_t(displs[size_t(r)]), size_t(lens[size_t(r)])));
  return out;
}

}  // namespace sdc::mpi
