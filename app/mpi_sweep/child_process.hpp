// Running one `dasim` command as a child process of an MPI rank, its stdout and stderr in files,
// and saying how it ended: the sweep's ranks simulate nothing themselves (dasim links SimGrid,
// whose SMPI exports MPI_* symbols that would replace Open MPI's in this program).
#pragma once

#include <string>
#include <vector>

namespace dasim::sweep {

struct ChildOutcome {
  bool ok = false;
  std::string how;  // "exit status 2", "killed by signal 9 (Killed)"
};

// argv[0] is the program; stdout/stderr go to the files (empty: inherited).
ChildOutcome run_child(const std::vector<std::string>& argv, const std::string& stdout_file,
                       const std::string& stderr_file);

// The last non-empty line of a file ("" when none): the one-line error a dasim command ends with.
std::string last_line(const std::string& file);

}  // namespace dasim::sweep
