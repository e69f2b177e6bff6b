// What a loader says of a bad file: the InputError's text after "FILE: " (its JSON path and what
// was expected), for tests that write one bad input per class and compare the one line. A loader
// that accepts the file, or throws something else, fails the test.
#pragma once

#include "common/errors.hpp"

#include <gtest/gtest.h>

#include <string>

namespace dasim::testing {

template <class Load>
std::string input_error_after_file(const std::string& file, Load load) {
  try {
    load(file);
  } catch (const dasim::InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(file + ": ", 0), 0u) << what;  // names the file first
    return what.substr(std::min(what.size(), file.size() + 2));
  }
  ADD_FAILURE() << "no InputError for " << file;
  return "";
}

}  // namespace dasim::testing
