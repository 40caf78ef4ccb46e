#pragma once
// A real PostgreSQL server for a test program, started through tests/e2e/lib/postgres_server.sh
// (a private unix socket in a fresh /tmp directory, no TCP) and stopped by the destructor.
// start() returns nullopt with the reason when the server binary is absent (the script exits
// 77); any other failure to start is a test failure.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include <sys/wait.h>

namespace sift::testing {

class PostgresServer {
 public:
  static std::unique_ptr<PostgresServer> start(std::string& skip_reason) {
    const std::string script = std::string(SIFT_SOURCE_DIR) + "/tests/e2e/lib/postgres_server.sh";
    const std::filesystem::path errors = std::filesystem::temp_directory_path() /
                                         ("sift-pg-start-" + std::to_string(::getpid()) + ".err");
    const std::string command = "bash '" + script + "' start 2>'" + errors.string() + "'";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) {
      ADD_FAILURE() << "cannot run " << script;
      return nullptr;
    }
    std::string out;
    char buffer[512];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
    const int status = pclose(pipe);
    std::ifstream error_file(errors);
    std::stringstream error_text;
    error_text << error_file.rdbuf();
    std::filesystem::remove(errors);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
      skip_reason = error_text.str();
      return nullptr;
    }
    std::istringstream lines(out);
    auto server = std::unique_ptr<PostgresServer>(new PostgresServer(script));
    std::getline(lines, server->dir_);
    std::getline(lines, server->uri_);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || server->uri_.empty()) {
      ADD_FAILURE() << "the PostgreSQL server did not start: " << error_text.str();
      return nullptr;
    }
    return server;
  }

  ~PostgresServer() {
    const std::string command = "bash '" + script_ + "' stop '" + dir_ + "'";
    if (std::system(command.c_str()) != 0) ADD_FAILURE() << "could not stop the server in " << dir_;
  }

  // The URI of database `name` on this server ("postgres" always exists).
  std::string uri(const std::string& name = "postgres") const {
    return "postgresql://sift@/" + name + "?host=" + dir_;
  }

 private:
  explicit PostgresServer(std::string script) : script_(std::move(script)) {}
  std::string script_;
  std::string dir_;
  std::string uri_;
};

}  // namespace sift::testing
