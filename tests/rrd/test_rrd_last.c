/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of rrd/rrdcached/rrd_last.c and rrd/rrdcached/rrdcached_pending.c: the
 * newest row of a file, from its header alone or, through a real rrdcached,
 * from the updates the daemon still holds.
 *
 * rrdcached_pending_parse is fed answers a real rrdcached 1.7.2 (Debian
 * 12) gave, byte for byte, each cut everywhere; the files are made with
 * rrd_file_create and rrd_file_update and their rows compared value for
 * value with what was written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/rrd_file.h"
#include "pvecg/rrd_last.h"
#include "rrd_fixture.h"
#include "rrdcached_fixture.h"
#include "rrdcached_pending.h"

#include <rrd.h>
#include <rrd_client.h>

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* ---- the answer to PENDING ---------------------------------------------- */

/* rrdcached 1.7.2's answers, captured from the daemon: two updates of a
 * two-column file (the second with a U), a file the daemon knows but has
 * flushed, and a file it has never heard of (1.7.2 says "0 updates
 * pending" for it too; later versions answer ENOENT_ANSWER). */
#define TWO_PENDING "2 updates pending\n1700000060:1:U\n1700000120:2.5:3\n"
#define TWO_PENDING_NEWEST "1700000120:2.5:3"
#define FLUSHED "0 updates pending\n"
#define NEVER_SEEN "0 updates pending\n"
/* rrdcached's own source for a file it holds nothing of, since 1.8 */
#define ENOENT_ANSWER "-1 No such file or directory\n"

static void check_whole(const char *answer, const char *newest_text) {
  size_t len = strlen(answer), newest = 99, newest_len = 99;
  assert_int_equal(rrdcached_pending_parse(answer, len, &newest, &newest_len),
                   (ssize_t)len);
  if (newest_text == NULL) {
    assert_int_equal(newest_len, 0);
  } else {
    assert_int_equal(newest_len, strlen(newest_text));
    assert_memory_equal(answer + newest, newest_text, newest_len);
  }
  /* an answer read piece by piece asks for more until it is whole */
  for (size_t cut = 0; cut < len; cut++)
    assert_int_equal(rrdcached_pending_parse(answer, cut, &newest, &newest_len),
                     0);
}

static void test_parse_real_answers(void **state) {
  (void)state;
  check_whole(TWO_PENDING, TWO_PENDING_NEWEST);
  check_whole(FLUSHED, NULL);
  check_whole(NEVER_SEEN, NULL);
  check_whole(ENOENT_ANSWER, NULL);
  check_whole("1 updates pending\n1700000300.5:5:6:7\n", "1700000300.5:5:6:7");
  /* the newest is the last line, whatever its time */
  check_whole("2 updates pending\n1700000120:2:2\n1700000060:1:1\n",
              "1700000060:1:1");
}

/* What follows an answer is not part of it. */
static void test_parse_extra_bytes(void **state) {
  (void)state;
  const char *two = TWO_PENDING FLUSHED;
  size_t newest = 0, newest_len = 0;
  assert_int_equal(
      rrdcached_pending_parse(two, strlen(two), &newest, &newest_len),
      (ssize_t)strlen(TWO_PENDING));
  assert_int_equal(newest_len, strlen(TWO_PENDING_NEWEST));
  assert_memory_equal(two + newest, TWO_PENDING_NEWEST, newest_len);
  const char *none = FLUSHED TWO_PENDING;
  assert_int_equal(
      rrdcached_pending_parse(none, strlen(none), &newest, &newest_len),
      (ssize_t)strlen(FLUSHED));
  assert_int_equal(newest_len, 0);
  const char *partial = ENOENT_ANSWER "2 upd";
  assert_int_equal(
      rrdcached_pending_parse(partial, strlen(partial), &newest, &newest_len),
      (ssize_t)strlen(ENOENT_ANSWER));
  assert_int_equal(newest_len, 0);
}

static void test_parse_garbage(void **state) {
  (void)state;
  const char *bad[] = {
      "\n",
      "updates pending\n",
      "x updates pending\n",
      " 2 updates pending\n",
      "2x updates pending\n",
      "2.5 updates pending\n",
      "-\n",
      "- 1 No such file\n",
      "--1 No such file\n",
      "1000001 updates pending\n",              /* over LINES_MAX */
      "99999999999999999999 updates pending\n", /* would overflow a long */
      "-1000001 error\n",
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    size_t newest, newest_len;
    assert_int_equal(
        rrdcached_pending_parse(bad[i], strlen(bad[i]), &newest, &newest_len),
        -EPROTO);
  }
  /* a first line that no status line is as long as, still without its
   * newline: refused rather than waited for */
  char long_line[4098];
  memset(long_line, '1', sizeof(long_line));
  size_t newest, newest_len;
  assert_int_equal(
      rrdcached_pending_parse(long_line, 4096, &newest, &newest_len), 0);
  assert_int_equal(
      rrdcached_pending_parse(long_line, 4097, &newest, &newest_len), -EPROTO);
  /* a count at the bound is one */
  const char *most = "1000000 updates pending\n";
  assert_int_equal(
      rrdcached_pending_parse(most, strlen(most), &newest, &newest_len), 0);
}

/* ---- files and daemons -------------------------------------------------- */

#define T0 1700000000 /* the files' creation: their first last update */

/* Two rows of a pve-vm-9.0 file, in layout order, as rrd_file_update takes
 * them; the second (the newest) leaves disk and pressureiofull unknown. */
#define ROW1_VALUES                                                            \
  "2:0.5:2147483648:268435456:1024:512:10:20:30:40:1:2:3:4:5:6:7"
#define ROW2_VALUES                                                            \
  "4:0.25:4294967296:1073741824:34359738368:U:1000:2000:3000:4000:536870912:"  \
  "1.5:0:12.5:U:0.75:0.125"
static const double row2[] = {
    4,    0.25, 4294967296, 1073741824, 34359738368, NAN,
    1000, 2000, 3000,       4000,       536870912,   1.5,
    0,    12.5, NAN,        0.75,       0.125,
};
/* A third row, sent through the daemon only. */
#define ROW3_VALUES                                                            \
  "8:0.75:4294967296:2147483648:34359738368:17179869184:5000:6000:7000:8000:"  \
  "1073741824:U:0.5:1:2:3:4"
static const double row3[] = {
    8,    0.75, 4294967296, 2147483648, 34359738368, 17179869184,
    5000, 6000, 7000,       8000,       1073741824,  NAN,
    0.5,  1,    2,          3,          4,
};

struct fixture {
  char *dir;
  char path[512];          /* a file made without daemon */
  struct rrdcached daemon; /* pid 0 unless a test started it */
  struct rrd_last_reader *reader;
};

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof(*f));
  f->dir = fixture_tmpdir("rrd-last");
  snprintf(f->path, sizeof(f->path), "%s/100", f->dir);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  rrd_last_reader_free(f->reader);
  rrdc_disconnect();
  if (f->daemon.pid > 0)
    rrdcached_kill(&f->daemon);
  fixture_remove(f->dir);
  free(f->dir);
  free(f);
  return 0;
}

static void make_file(const char *path, int rows) {
  char err[256], row[512];
  assert_int_equal(
      rrd_file_create(&layout_pve_vm_9_0, path, T0, err, sizeof(err)), 0);
  if (rows >= 1) {
    snprintf(row, sizeof(row), "%d:%s", T0 + 60, ROW1_VALUES);
    assert_int_equal(rrd_file_update(path, row, err, sizeof(err)), 0);
  }
  if (rows >= 2) {
    snprintf(row, sizeof(row), "%d:%s", T0 + 120, ROW2_VALUES);
    assert_int_equal(rrd_file_update(path, row, err, sizeof(err)), 0);
  }
}

/* The row has the layout's columns, in its order, and these values. */
static void check_row(const struct rrd_last_row *row, time_t t,
                      const double *values) {
  assert_int_equal(row->time, t);
  assert_int_equal(row->ds_count, layout_pve_vm_9_0.ds_count);
  for (size_t i = 0; i < row->ds_count; i++) {
    assert_string_equal(row->ds_names[i], layout_pve_vm_9_0.ds[i].name);
    if (values == NULL || isnan(values[i]))
      assert_true(isnan(row->values[i]));
    else
      assert_true(row->values[i] == values[i]);
  }
}

/* One exchange with the daemon on a connection of the test's own: sends
 * text and reads the answer into buf -- one line, or with pending true a
 * whole answer to PENDING. */
static void daemon_say(const struct rrdcached *d, const char *text,
                       bool pending, char *buf, size_t size) {
  int fd;
  if (d->tcp) {
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)atoi(strchr(d->address, ':') + 1));
    fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
  } else {
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", d->address + 5);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
  }
  assert_int_equal(send(fd, text, strlen(text), MSG_NOSIGNAL),
                   (ssize_t)strlen(text));
  size_t len = 0, newest, newest_len;
  for (;;) {
    ssize_t got = recv(fd, buf + len, size - 1 - len, 0);
    assert_true(got > 0);
    len += (size_t)got;
    buf[len] = '\0';
    if (pending ? rrdcached_pending_parse(buf, len, &newest, &newest_len) > 0
                : memchr(buf, '\n', len) != NULL)
      break;
  }
  close(fd);
}

/* UPDATE of the file (named as the daemon knows it) with one row; the
 * daemon takes it into its cache. */
static void daemon_update(const struct rrdcached *d, const char *name, time_t t,
                          const char *values) {
  char text[1024], answer[256];
  assert_true((size_t)snprintf(text, sizeof(text), "UPDATE %s %lld:%s\n", name,
                               (long long)t, values) < sizeof(text));
  daemon_say(d, text, false, answer, sizeof(answer));
  assert_string_equal(answer, "0 errors, enqueued 1 value(s).\n");
}

/* ---- without daemon ----------------------------------------------------- */

static void test_local(void **state) {
  struct fixture *f = *state;
  make_file(f->path, 2);
  assert_int_equal(rrd_last_reader_new(NULL, &f->reader), 0);
  struct rrd_last_row row;
  char err[256] = "";
  assert_int_equal(rrd_last_read(f->reader, f->path, &row, err, sizeof(err)),
                   0);
  check_row(&row, T0 + 120, row2);
  assert_string_equal(err, "");
  /* the same reader again, and one made with "" */
  memset(&row, 0x55, sizeof(row));
  assert_int_equal(rrd_last_read(f->reader, f->path, &row, err, sizeof(err)),
                   0);
  check_row(&row, T0 + 120, row2);
  struct rrd_last_reader *empty;
  assert_int_equal(rrd_last_reader_new("", &empty), 0);
  assert_int_equal(rrd_last_read(empty, f->path, &row, err, sizeof(err)), 0);
  check_row(&row, T0 + 120, row2);
  rrd_last_reader_free(empty);
}

/* A file never updated: its last update is its creation (what `rrdtool
 * lastupdate` prints, the --start it was made with), every value U. */
static void test_local_never_updated(void **state) {
  struct fixture *f = *state;
  make_file(f->path, 0);
  time_t on_disk = 0;
  char err[256];
  assert_int_equal(rrd_file_last_update(f->path, &on_disk, err, sizeof(err)),
                   0);
  assert_int_equal(on_disk, T0);
  assert_int_equal(rrd_last_reader_new(NULL, &f->reader), 0);
  struct rrd_last_row row;
  assert_int_equal(rrd_last_read(f->reader, f->path, &row, err, sizeof(err)),
                   0);
  check_row(&row, T0, NULL);
}

static void test_local_errors(void **state) {
  struct fixture *f = *state;
  assert_int_equal(rrd_last_reader_new(NULL, &f->reader), 0);
  struct rrd_last_row row;
  memset(&row, 0x55, sizeof(row));
  char err[256] = "", path[600];
  fixture_path(path, "%s/nosuch", f->dir);
  assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)),
                   -ENOENT);
  /* below a file that is not a directory */
  fixture_path(path, "%s/text/100", f->dir);
  char text[600];
  fixture_path(text, "%s/text", f->dir);
  fixture_write(text, "not an rrd\n", 11);
  assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)),
                   -ENOENT);
  /* a file that is not an RRD: librrd says why */
  assert_int_equal(rrd_last_read(f->reader, text, &row, err, sizeof(err)),
                   -EIO);
  assert_true(strlen(err) > 0);
  assert_non_null(strstr(err, "while loading header"));
  /* nothing was written into the row on failure */
  assert_int_equal(row.ds_count, (size_t)0x5555555555555555ULL);
}

static void test_value_by_name(void **state) {
  struct fixture *f = *state;
  make_file(f->path, 2);
  assert_int_equal(rrd_last_reader_new(NULL, &f->reader), 0);
  struct rrd_last_row row;
  char err[256];
  assert_int_equal(rrd_last_read(f->reader, f->path, &row, err, sizeof(err)),
                   0);
  assert_true(rrd_last_value(&row, "maxcpu") == 4);
  assert_true(rrd_last_value(&row, "mem") == 1073741824);
  assert_true(rrd_last_value(&row, "maxdisk") == 34359738368.0);
  assert_true(rrd_last_value(&row, "netin") == 1000); /* the raw counter */
  assert_true(rrd_last_value(&row, "pressureiosome") == 12.5);
  assert_true(rrd_last_value(&row, "pressurememoryfull") == 0.125);
  assert_true(isnan(rrd_last_value(&row, "disk")));    /* U */
  assert_true(isnan(rrd_last_value(&row, "memused"))); /* a node's */
  assert_true(isnan(rrd_last_value(&row, "")));
  assert_true(isnan(rrd_last_value(&row, "MEM")));
  struct rrd_last_row none = {0};
  assert_true(isnan(rrd_last_value(&none, "maxcpu")));
}

/* ---- through rrdcached on a unix socket --------------------------------- */

static struct rrdcached *start_daemon(struct fixture *f, bool tcp) {
  struct rrdcached *d = &f->daemon;
  rrdcached_prepare(d, f->dir, tcp);
  rrdcached_start(d);
  return d;
}

/* Rows the daemon holds are the newest; the header on disk is older.  The
 * daemon's PENDING answer is the one the parser tests use. */
static void test_daemon_unix(void **state) {
  struct fixture *f = *state;
  if (!rrdcached_available())
    skip();
  struct rrdcached *d = start_daemon(f, false);
  char path[600], err[256] = "";
  fixture_path(path, "%s/100", d->db);
  make_file(path, 1);
  daemon_update(d, path, T0 + 120, ROW2_VALUES);
  time_t on_disk = 0;
  assert_int_equal(rrd_file_last_update(path, &on_disk, err, sizeof(err)), 0);
  assert_int_equal(on_disk, T0 + 60);
  assert_int_equal(rrd_last_reader_new(d->address, &f->reader), 0);
  struct rrd_last_row row;
  assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)), 0);
  check_row(&row, T0 + 120, row2);
  daemon_update(d, path, T0 + 180, ROW3_VALUES);
  assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)), 0);
  check_row(&row, T0 + 180, row3);
  assert_int_equal(rrd_file_last_update(path, &on_disk, err, sizeof(err)), 0);
  assert_int_equal(on_disk, T0 + 60);

  char text[700], answer[1024], expected[1024];
  fixture_path(text, "PENDING %s\n", path);
  daemon_say(d, text, true, answer, sizeof(answer));
  fixture_path(expected, "2 updates pending\n%d:%s\n%d:%s\n", T0 + 120,
               ROW2_VALUES, T0 + 180, ROW3_VALUES);
  assert_string_equal(answer, expected);

  /* a relative name reaches the daemon resolved, as the writer's */
  char cwd[1024];
  assert_non_null(getcwd(cwd, sizeof(cwd)));
  assert_int_equal(chdir(d->db), 0);
  assert_int_equal(rrd_last_read(f->reader, "./100", &row, err, sizeof(err)),
                   0);
  assert_int_equal(chdir(cwd), 0);
  check_row(&row, T0 + 180, row3);

  /* flushed: the header has it, the daemon nothing */
  fixture_path(text, "FLUSH %s\n", path);
  daemon_say(d, text, false, answer, sizeof(answer));
  assert_int_equal(strncmp(answer, "0 ", 2), 0);
  fixture_path(text, "PENDING %s\n", path);
  daemon_say(d, text, true, answer, sizeof(answer));
  assert_string_equal(answer, FLUSHED);
  assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)), 0);
  check_row(&row, T0 + 180, row3);
}

/* A file the daemon has never heard of reads as its header; the daemon's
 * answer is the parser tests' NEVER_SEEN. */
static void test_daemon_unix_never_seen(void **state) {
  struct fixture *f = *state;
  if (!rrdcached_available())
    skip();
  struct rrdcached *d = start_daemon(f, false);
  char path[600], err[256], text[700], answer[256];
  fixture_path(path, "%s/100", d->db);
  make_file(path, 2);
  fixture_path(text, "PENDING %s\n", path);
  daemon_say(d, text, true, answer, sizeof(answer));
  assert_string_equal(answer, NEVER_SEEN);
  assert_int_equal(rrd_last_reader_new(d->address, &f->reader), 0);
  struct rrd_last_row row;
  assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)), 0);
  check_row(&row, T0 + 120, row2);
  /* no file: whatever the daemon would say */
  fixture_path(path, "%s/nosuch", d->db);
  assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)),
                   -ENOENT);
}

/* A pending update that is not a row of the file (too few or too many
 * values, no time) is not taken as the newest row. */
static void test_daemon_unix_wrong_row(void **state) {
  struct fixture *f = *state;
  if (!rrdcached_available())
    skip();
  struct rrdcached *d = start_daemon(f, false);
  char path[600], err[256];
  fixture_path(path, "%s/100", d->db);
  make_file(path, 2);
  assert_int_equal(rrd_last_reader_new(d->address, &f->reader), 0);
  struct rrd_last_row row;
  const char *wrong[] = {"1:2:3", ROW3_VALUES ":1", "U"};
  for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
    daemon_update(d, path, T0 + 180 + 60 * (time_t)i, wrong[i]);
    assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)), 0);
    /* the daemon will refuse it when it writes the file: the newest row
     * stays the header's */
    assert_true(row.time < T0 + 180);
    check_row(&row, T0 + 120, row2);
  }
}

/* A malformed newest pending update does not hide a good one before it:
 * the newest well-formed pending row wins, not the older header (a time
 * going back would be refused by Prometheus as out of order). */
static void test_daemon_unix_good_under_bad(void **state) {
  struct fixture *f = *state;
  if (!rrdcached_available())
    skip();
  struct rrdcached *d = start_daemon(f, false);
  char path[600], err[256];
  fixture_path(path, "%s/100", d->db);
  make_file(path, 1);
  daemon_update(d, path, T0 + 120, ROW2_VALUES);
  daemon_update(d, path, T0 + 180, "1:2:3");
  assert_int_equal(rrd_last_reader_new(d->address, &f->reader), 0);
  struct rrd_last_row row;
  assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)), 0);
  check_row(&row, T0 + 120, row2);
}

/* A file name with a line end is never sent (it would make two requests
 * of one and put the connection an answer behind): that read fails, the
 * next file's is right. */
static void test_daemon_unix_newline_name(void **state) {
  struct fixture *f = *state;
  if (!rrdcached_available())
    skip();
  struct rrdcached *d = start_daemon(f, false);
  char odd[600], path[600], err[256];
  fixture_path(odd, "%s/a\nb", d->db);
  fixture_path(path, "%s/100", d->db);
  make_file(odd, 1);
  make_file(path, 1);
  daemon_update(d, path, T0 + 120, ROW2_VALUES);
  assert_int_equal(rrd_last_reader_new(d->address, &f->reader), 0);
  struct rrd_last_row row;
  for (int i = 0; i < 3; i++) {
    assert_int_equal(rrd_last_read(f->reader, odd, &row, err, sizeof(err)),
                     -EIO);
    assert_non_null(strstr(err, "control character"));
    assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)), 0);
    check_row(&row, T0 + 120, row2);
  }
}

/* The daemon going away: -ENOTCONN; back again, the same reader
 * reconnects. */
static void test_daemon_unix_restart(void **state) {
  struct fixture *f = *state;
  if (!rrdcached_available())
    skip();
  struct rrdcached *d = start_daemon(f, false);
  char path[600], err[256] = "";
  fixture_path(path, "%s/100", d->db);
  make_file(path, 1);
  daemon_update(d, path, T0 + 120, ROW2_VALUES);
  assert_int_equal(rrd_last_reader_new(d->address, &f->reader), 0);
  struct rrd_last_row row;
  assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)), 0);
  check_row(&row, T0 + 120, row2);

  rrdcached_stop(d);
  memset(&row, 0x55, sizeof(row));
  assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)),
                   -ENOTCONN);
  assert_true(strlen(err) > 0);
  assert_int_equal(row.ds_count, (size_t)0x5555555555555555ULL);
  assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)),
                   -ENOTCONN);

  /* the journal gives the restarted daemon its cache back, or the file
   * has the row: either way the row is the newest */
  rrdcached_start(d);
  assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)), 0);
  check_row(&row, T0 + 120, row2);
  daemon_update(d, path, T0 + 180, ROW3_VALUES);
  assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)), 0);
  check_row(&row, T0 + 180, row3);

  /* killed under a kept connection: the reader notices at the next read */
  rrdcached_kill(d);
  assert_int_equal(rrd_last_read(f->reader, path, &row, err, sizeof(err)),
                   -ENOTCONN);
}

/* ---- through rrdcached over TCP ----------------------------------------- */

/* The files are the daemon's: names relative to its base directory, the
 * header from INFO. */
static void test_daemon_tcp(void **state) {
  struct fixture *f = *state;
  if (!rrdcached_available())
    skip();
  struct rrdcached *d = start_daemon(f, true);
  char path[600], err[256] = "";
  fixture_path(path, "%s/100", d->db);
  make_file(path, 2);
  fixture_path(path, "%s/101", d->db);
  make_file(path, 0);
  assert_int_equal(rrd_last_reader_new(d->address, &f->reader), 0);
  struct rrd_last_row row;
  assert_int_equal(rrd_last_read(f->reader, "100", &row, err, sizeof(err)), 0);
  check_row(&row, T0 + 120, row2);
  assert_int_equal(rrd_last_read(f->reader, "101", &row, err, sizeof(err)), 0);
  check_row(&row, T0, NULL);

  daemon_update(d, "100", T0 + 180, ROW3_VALUES);
  char answer[1024], expected[1024];
  daemon_say(d, "PENDING 100\n", true, answer, sizeof(answer));
  fixture_path(expected, "1 updates pending\n%d:%s\n", T0 + 180, ROW3_VALUES);
  assert_string_equal(answer, expected);
  assert_int_equal(rrd_last_read(f->reader, "100", &row, err, sizeof(err)), 0);
  check_row(&row, T0 + 180, row3);
  /* "./100" is the daemon's "100" */
  assert_int_equal(rrd_last_read(f->reader, "./100", &row, err, sizeof(err)),
                   0);
  check_row(&row, T0 + 180, row3);
  /* the header the daemon reads is still the older row */
  fixture_path(path, "%s/100", d->db);
  struct rrd_last_reader *local;
  assert_int_equal(rrd_last_reader_new(NULL, &local), 0);
  assert_int_equal(rrd_last_read(local, path, &row, err, sizeof(err)), 0);
  rrd_last_reader_free(local);
  check_row(&row, T0 + 120, row2);

  assert_int_equal(rrd_last_read(f->reader, "nosuch", &row, err, sizeof(err)),
                   -ENOENT);
}

static void test_reader_new(void **state) {
  (void)state;
  struct rrd_last_reader *r = NULL;
  assert_int_equal(rrd_last_reader_new("127.0.0.1:1 2", &r), -EINVAL);
  assert_int_equal(rrd_last_reader_new("unix:relative/sock", &r), -EINVAL);
  assert_int_equal(rrd_last_reader_new("unix:/nonexistent/sock", &r), 0);
  struct rrd_last_row row;
  char err[256] = "";
  /* the header first: no file, whatever the daemon */
  assert_int_equal(rrd_last_read(r, "/nonexistent/100", &row, err, sizeof(err)),
                   -ENOENT);
  rrd_last_reader_free(r);
  rrd_last_reader_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_real_answers),
      cmocka_unit_test(test_parse_extra_bytes),
      cmocka_unit_test(test_parse_garbage),
      cmocka_unit_test(test_reader_new),
      cmocka_unit_test_setup_teardown(test_local, setup, teardown),
      cmocka_unit_test_setup_teardown(test_local_never_updated, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_local_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_value_by_name, setup, teardown),
      cmocka_unit_test_setup_teardown(test_daemon_unix, setup, teardown),
      cmocka_unit_test_setup_teardown(test_daemon_unix_never_seen, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_daemon_unix_wrong_row, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_daemon_unix_good_under_bad, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_daemon_unix_newline_name, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_daemon_unix_restart, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_daemon_tcp, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
