#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
# The rows Proxmox VE's API makes of one fetch, computed by Proxmox's own
# way of reading a file: Perl's RRDs::fetch (librrds-perl) and the loop of
# PVE::RRD's get_rrd_data, "time" => $start, $start += $step per row,
# undefined values left out, a node file's memfree also as memavailable.
# Prints the rows as one JSON array, keys in the file's order and numbers
# as Perl (and so JSON::XS) writes them, for a byte-for-byte comparison.
#
# usage: rrds_rows.pl PATH CF RESO START END [node] [--daemon ADDRESS]
use strict;
use warnings;
use RRDs;

my ($path, $cf, $reso, $start, $end, @rest) = @ARGV;
die "usage: $0 PATH CF RESO START END [node] [--daemon ADDRESS]\n"
  if !defined($end);
my $is_node = @rest && $rest[0] eq 'node' ? shift(@rest) : 0;
my @args = ('-s' => $start, '-e' => $end, '-r' => $reso, @rest);

my ($time, $step, $names, $data) = RRDs::fetch($path, $cf, @args);
my $err = RRDs::error;
die "RRD error: $err\n" if $err;

my @rows;
for my $line (@$data) {
    my @fields = ("\"time\":$time");
    $time += $step;
    my $has_available = grep { $_ eq 'memavailable' } @$names;
    for (my $i = 0; $i < @$names; $i++) {
        my $val = $line->[$i];
        next if !defined($val);
        push @fields, "\"$names->[$i]\":$val";
        push @fields, "\"memavailable\":$val"
          if $is_node && $names->[$i] eq 'memfree' && !$has_available;
    }
    push @rows, '{' . join(',', @fields) . '}';
}
print '[' . join(',', @rows) . "]\n";
