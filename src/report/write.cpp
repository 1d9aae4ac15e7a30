#include "report/write.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "report/csv.hpp"
#include "report/html.hpp"
#include "report/json.hpp"
#include "report/junit.hpp"
#include "report/markdown.hpp"
#include "util/error.hpp"
#include "util/json.hpp"

namespace mudjack::report {
namespace {

using util::FatalError;

std::string known_formats() {
  std::string all;
  for (auto f : kFormats) {
    if (!all.empty()) {
      all += ", ";
    }
    all += f;
  }
  return all;
}

}  // namespace

std::string render(std::string_view format, const verdict::Judged& judged) {
  if (format == "json") {
    return util::dump_json(to_json(judged), 1) + "\n";
  }
  if (format == "csv") {
    return to_csv(judged.cases, judged.checked, judged.refusals);
  }
  if (format == "junit") {
    return to_junit(judged.run, judged.cases);
  }
  if (format == "md") {
    return to_markdown(judged);
  }
  if (format == "html") {
    return to_html(judged);
  }
  throw FatalError("unknown report format '" + std::string(format) +
                   "' (known: " + known_formats() + ")");
}

namespace {

// Creates the temporary file `tmp` for writing, never through a link: with
// O_EXCL | O_NOFOLLOW, a file or link already there (a leftover, or one
// planted to make us write elsewhere) fails the open; it is unlinked (a link
// as itself, never what it names) and the open tried once more. -1 with
// errno set when that fails too.
int create_private(const std::filesystem::path& tmp) {
  constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::open(tmp.c_str(), kFlags, 0644);
  if (fd < 0 && errno == EEXIST && ::unlink(tmp.c_str()) == 0) {
    fd = ::open(tmp.c_str(), kFlags, 0644);
  }
  return fd;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& file, std::string_view content) {
  std::filesystem::path tmp = file;
  tmp += ".tmp." + std::to_string(::getpid());
  const auto fail = [&](const char* what, int err) {
    ::unlink(tmp.c_str());
    return FatalError("cannot write " + file.string() + ": " + what + ": " + std::strerror(err));
  };
  int fd = create_private(tmp);
  if (fd < 0) {
    int err = errno;
    throw FatalError("cannot write " + file.string() + ": " + std::strerror(err));
  }
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      int err = errno;
      ::close(fd);
      throw fail("write", err);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    throw fail("fsync", err);
  }
  if (::close(fd) != 0) {
    throw fail("close", errno);
  }
  // rename(2) replaces a link at `file` by the file itself: never written through.
  if (std::rename(tmp.c_str(), file.c_str()) != 0) {
    throw fail("rename", errno);
  }
}

void write_all(const std::filesystem::path& dir, const verdict::Judged& judged) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw FatalError("cannot create report folder " + dir.string() + ": " + ec.message());
  }
  for (size_t i = 0; i < kFormats.size(); ++i) {
    write_file_atomically(dir / kFileNames[i], render(kFormats[i], judged));
  }
}

}  // namespace mudjack::report
