#include "cli_main.hpp"

#include "common/closest_name.hpp"
#include "common/errors.hpp"
#include "runtime/interruption.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace dasim::cli {

namespace {

// `arg` as the unknown option it is, with the nearest of `app`'s own long options: a subcommand's
// options are the only ones valid after it (no fallthrough to the parent's).
std::string unknown_option(const CLI::App& app, const std::string& arg) {
  // "--jbos=2" names "--jbos", "-x2" names "-x" (a short option's value may follow its letter).
  const bool is_long = arg.rfind("--", 0) == 0;
  const std::string name = is_long ? arg.substr(0, arg.find('=')) : arg.substr(0, 2);
  std::optional<std::string> near;
  if (is_long) {
    // Compared without the dashes, so they do not count towards how many edits a name may need.
    std::vector<std::string> long_names;
    for (const CLI::Option* option : app.get_options())
      for (const std::string& l : option->get_lnames()) long_names.push_back(l);
    near = closest_name(name.substr(2), long_names);
  }  // a short option is one letter: any other letter is as near, so none is suggested
  if (near) return fmt::format("{}: unknown option; did you mean --{}?", name, *near);
  return fmt::format("{}: unknown option (see --help)", name);
}

// A misspelt option or subcommand as one line naming the nearest real one, or "" when the parse
// error is not about an argument nobody took. CLI11 parses every argument before it checks what is
// required, so `dasim run --jbos 2` or `dasim rnu` would otherwise read "scenario is required" or
// "A subcommand is required": the leftovers say what the user actually got wrong.
std::string unknown_argument(const CLI::App& app) {
  // The selected subcommands, outermost first; each keeps the arguments it could not place.
  std::vector<const CLI::App*> chain{&app};
  while (!chain.back()->get_subcommands().empty()) chain.push_back(chain.back()->get_subcommands().front());
  for (const CLI::App* at : chain) {
    const auto subcommands =
        at->get_subcommands([](const CLI::App* sub) { return !sub->get_name().empty(); });
    for (const std::string& arg : at->remaining()) {
      if (arg == "--") continue;  // the end-of-options mark, not an argument
      // "-3" is a negative number left over, not an option.
      const bool option =
          arg.size() > 1 && arg[0] == '-' && !std::isdigit(static_cast<unsigned char>(arg[1]));
      if (option) return unknown_option(*at, arg);
      // A word where a subcommand was expected and none was selected: a misspelt subcommand.
      if (at != chain.back() || subcommands.empty()) continue;
      std::vector<std::string> names;
      for (const CLI::App* sub : subcommands) names.push_back(sub->get_name());
      if (auto near = closest_name(arg, names))
        return fmt::format("{}: unknown subcommand; did you mean {}?", arg, *near);
      return fmt::format("{}: unknown subcommand (see --help)", arg);
    }
  }
  return "";
}

}  // namespace

int run_cli(CLI::App& app, int argc, char** argv) {
  // Bad arguments are bad input like any other: one line on stderr, exit status 2.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("dasim: error: ") + e.what() + " (see --help)\n";
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0 in CLI11.
    if (e.get_exit_code() != 0) {
      if (const std::string unknown = unknown_argument(app); !unknown.empty()) {
        fmt::print(stderr, "dasim: error: {}\n", unknown);
        return kExitBadInput;
      }
    }
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  } catch (const InputError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "dasim: error: {}\n", e.what());
    return kExitBadInput;
  } catch (const RuntimeFailure& e) {
    std::fflush(stdout);
    fmt::print(stderr, "dasim: failed: {}\n", e.what());
    return kExitRuntimeFailure;
  } catch (const runtime::Interrupted& e) {
    std::fflush(stdout);
    fmt::print(stderr, "dasim: {}\n", e.what());
    return e.exit_status();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "dasim: internal error: {}\n", e.what());
    return kExitRuntimeFailure;
  }
  return kExitOk;
}

}  // namespace dasim::cli
