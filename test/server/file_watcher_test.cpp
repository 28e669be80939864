// Tests server/file_watcher.cpp: in-place writes, renames and cert-manager style symlink swaps
// are all seen; an unchanged file is not.
#include "server/file_watcher.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace rjg::server {
namespace {

namespace fs = std::filesystem;

class FileWatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "rjg-watch-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  static void write(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::trunc) << text;
  }
  fs::path dir_;
};

TEST_F(FileWatcherTest, UnchangedIsQuiet) {
  write(dir_ / "a", "one");
  FileWatcher w({(dir_ / "a").string(), ""});
  EXPECT_FALSE(w.changed());
  EXPECT_FALSE(w.changed());
}

TEST_F(FileWatcherTest, RewriteAndRenameAreSeen) {
  write(dir_ / "a", "one");
  FileWatcher w({(dir_ / "a").string()});
  write(dir_ / "a", "two!");  // size differs
  EXPECT_TRUE(w.changed());
  EXPECT_FALSE(w.changed());
  write(dir_ / "b", "two!");
  fs::rename(dir_ / "b", dir_ / "a");  // new inode
  EXPECT_TRUE(w.changed());
  EXPECT_FALSE(w.changed());
}

TEST_F(FileWatcherTest, SymlinkSwapIsSeen) {
  // kubelet's layout: tls.crt -> ..data/tls.crt, ..data -> ..v1; rotation swaps ..data.
  fs::create_directory(dir_ / "..v1");
  fs::create_directory(dir_ / "..v2");
  write(dir_ / "..v1" / "tls.crt", "same");
  write(dir_ / "..v2" / "tls.crt", "same");
  fs::create_directory_symlink("..v1", dir_ / "..data");
  fs::create_symlink("..data/tls.crt", dir_ / "tls.crt");
  FileWatcher w({(dir_ / "tls.crt").string()});
  fs::create_directory_symlink("..v2", dir_ / "..tmp");
  fs::rename(dir_ / "..tmp", dir_ / "..data");
  EXPECT_TRUE(w.changed());
  EXPECT_FALSE(w.changed());
}

TEST_F(FileWatcherTest, RemovalIsSeen) {
  write(dir_ / "a", "one");
  FileWatcher w({(dir_ / "a").string()});
  fs::remove(dir_ / "a");
  EXPECT_TRUE(w.changed());
  EXPECT_FALSE(stamp_file((dir_ / "a").string()).exists);
}

}  // namespace
}  // namespace rjg::server
