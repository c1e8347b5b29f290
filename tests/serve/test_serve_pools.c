/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/serve/serve_pools.c: a pool's members from user.cfg as
 * Proxmox's parse_user_config reads them -- fields trimmed, members split
 * at ',', ';' and blanks, a pool on several lines, a VMID in two pools
 * kept by the first, members that are no VMID left out, a pool without
 * members, a pool that is not there, nested pool names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "serve_pools.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* user.cfg as pveum writes it, with the other kinds of lines around */
static const char user_cfg[] =
    "user:root@pam:1:0:::root@example.com:::\n"
    "token:root@pam!pvecg:0:1::\n"
    "user:alice@pve:1:0:Alice::::\n"
    "\n"
    "group:tenants:alice@pve::\n"
    "\n"
    "pool:tenantA:Tenant A%27s guests:101,100:local-lvm:\n"
    "pool:tenantB::102;103 105:local:\n"
    "pool:empty:nothing yet:::\n"
    "  pool : spaced : : 110 , 111 : :  \n"
    "pool:tenantB::100,104:\n"
    "pool:odd::200,abc,99,0300,1000000000,-5,201x:\n"
    "pool:parent/child::120:\n"
    "pool:parent::121:\n"
    "pool:crlf::130\r\n"
    "\n"
    "role:PVEAuditor2:VM.Audit:\n"
    "acl:1:/pool/tenantA:alice@pve:PVEVMUser:\n";

/* The members of pool as "a,b,c", or the error. */
static const char *members(const char *text, const char *pool) {
  static char out[256];
  uint32_t *vmids = (uint32_t *)1;
  size_t count = 7;
  int r = serve_pool_members(text, strlen(text), pool, &vmids, &count);
  if (r != 0) {
    snprintf(out, sizeof(out), "error %d", r);
    return out;
  }
  out[0] = '\0';
  for (size_t i = 0; i < count; i++)
    snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%u",
             i > 0 ? "," : "", vmids[i]);
  if (count == 0)
    assert_null(vmids);
  free(vmids);
  return out;
}

static void test_members(void **state) {
  (void)state;
  assert_string_equal(members(user_cfg, "tenantA"), "100,101");
  /* 100 was tenantA's first: Proxmox ignores it in tenantB */
  assert_string_equal(members(user_cfg, "tenantB"), "102,103,104,105");
  assert_string_equal(members(user_cfg, "empty"), "");
  assert_string_equal(members(user_cfg, "spaced"), "110,111");
  /* digits only, leading zeros as Proxmox's int(), a VMID's range */
  assert_string_equal(members(user_cfg, "odd"), "200,300");
  /* nested pools are pools of their own: the parent's are its own */
  assert_string_equal(members(user_cfg, "parent/child"), "120");
  assert_string_equal(members(user_cfg, "parent"), "121");
  assert_string_equal(members(user_cfg, "crlf"), "130");
}

static void test_missing(void **state) {
  (void)state;
  char want[32];
  snprintf(want, sizeof(want), "error %d", -ENOENT);
  assert_string_equal(members(user_cfg, "tenantC"), want);
  assert_string_equal(members(user_cfg, "tenant"), want);
  assert_string_equal(members(user_cfg, "tenantAA"), want);
  assert_string_equal(members(user_cfg, "child"), want);
  /* a user, a group or a token of that name is no pool */
  assert_string_equal(members(user_cfg, "tenants"), want);
  assert_string_equal(members(user_cfg, "root@pam"), want);
  assert_string_equal(members("", "tenantA"), want);
  assert_string_equal(members("pool", "tenantA"), want);
  assert_string_equal(members("poolx:tenantA::100:", "tenantA"), want);
  assert_string_equal(members("# pool:tenantA::100:", "tenantA"), want);
}

static void test_no_newline_at_end(void **state) {
  (void)state;
  assert_string_equal(members("pool:a::100,101", "a"), "100,101");
  assert_string_equal(members("pool:a", "a"), "");
  assert_string_equal(members("pool:a:c", "a"), "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_members),
      cmocka_unit_test(test_missing),
      cmocka_unit_test(test_no_newline_at_end),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
