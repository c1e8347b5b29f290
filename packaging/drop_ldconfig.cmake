# SPDX-License-Identifier: GPL-2.0-or-later
# CPack post-build script (CPACK_POST_BUILD_SCRIPTS): takes out the
# postinst and postrm that CPack's DEB generator adds to call ldconfig for
# any ELF shared object below /usr/lib.  The plugins in /usr/lib/collectd
# are modules collectd dlopen()s, not libraries the dynamic linker looks
# up, so the calls do nothing (lintian: maintscript-calls-ldconfig).  Only
# scripts that are exactly CPack's ldconfig call are removed; the package
# is then rebuilt from the same files with dpkg-deb.
foreach(deb IN LISTS CPACK_PACKAGE_FILES)
  if(NOT deb MATCHES "\\.deb$")
    continue()
  endif()
  set(root "${deb}.root")
  file(REMOVE_RECURSE "${root}")
  execute_process(COMMAND dpkg-deb -R "${deb}" "${root}"
                  RESULT_VARIABLE r)
  if(NOT r EQUAL 0)
    message(FATAL_ERROR "dpkg-deb -R ${deb} failed")
  endif()
  set(changed FALSE)
  foreach(script postinst postrm)
    set(path "${root}/DEBIAN/${script}")
    if(EXISTS "${path}")
      file(READ "${path}" text)
      string(REGEX REPLACE "[ \t\r\n]+" " " flat "${text}")
      if(flat MATCHES "^#!/bin/sh set -e if \\[ \"\\$1\" = \"[a-z]+\" \\]; then ldconfig fi ?$")
        file(REMOVE "${path}")
        set(changed TRUE)
      endif()
    endif()
  endforeach()
  if(changed)
    execute_process(COMMAND dpkg-deb --root-owner-group -Zxz -b "${root}" "${deb}"
                    RESULT_VARIABLE r OUTPUT_QUIET)
    if(NOT r EQUAL 0)
      message(FATAL_ERROR "dpkg-deb -b ${deb} failed")
    endif()
  endif()
  file(REMOVE_RECURSE "${root}")
endforeach()
