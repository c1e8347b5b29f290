#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What pvestatd reads per QEMU guest and status cycle for memory and
# pressure, the way pve-common 9.2.1 (commit f665029e) and qemu-server
# 9.2.6 (commit e6352be6) read it, rewritten for pvecg-bench's peers mode:
#
#   memory (PVE::CGroup::get_memory_stat, called from vmstatus in an eval):
#     cgroup v2: memory.current, memory.swap.current, memory.stat;
#                mem = memory.current - stat{file}
#     cgroup v1: memory.stat, memory.usage_in_bytes,
#                memory.memsw.usage_in_bytes; mem = usage - stat{total_cache}
#     each file opened with IO::File, slurped with sysread in 8 KiB pieces
#     (PVE::File::file_get_contents), closed; memory.stat split into lines
#     and matched with /^(\S+)\s+(.*)$/ (the flat keyed parser).
#   pressure (PVE::ProcFSTools::read_cgroup_pressure):
#     cpu.pressure, memory.pressure, io.pressure of the guest's cgroup2
#     directory, each opened with IO::File, read line by line against the
#     some/full avg10/avg60/avg300/total regex, closed; vmstatus keeps the
#     six avg10 values.
#
# Only the memory and pressure reads are here: the rest of a status cycle
# (/proc/<pid>/stat, QMP queries, the RRD update through pmxcfs) is not.
#
# Usage: pve_read.pl --root DIR --memory-root DIR --memory-version 1|2
#                    --vmids FILE [--check]
# Without --check it passes over every guest once a second, at the start of
# each second, until SIGTERM.  --check makes one pass and prints how many
# guests gave a memory figure and how many gave all six pressure values.
use strict;
use warnings;

use Getopt::Long qw(GetOptions);
use IO::File;
use Time::HiRes qw(time sleep);

my ($root, $memory_root, $memory_version, $vmid_file, $check) =
    ('', '', 2, '', 0);
GetOptions(
    'root=s' => \$root,
    'memory-root=s' => \$memory_root,
    'memory-version=i' => \$memory_version,
    'vmids=s' => \$vmid_file,
    'check' => \$check,
) or die "bad arguments\n";

sub slurp {
    my ($path) = @_;
    my $fh = IO::File->new($path, "r") or die "can't open '$path' - $!\n";
    my ($data, $got, $n) = ('', 0);
    while ($n = sysread($fh, $data, 8192, $got)) {
        $got += $n;
        die "'$path' too long\n" if $got > 1024 * 1024;
    }
    die "unable to read '$path' - $!\n" if !defined($n);
    close($fh);
    return $data;
}

sub flat_keyed {
    my ($data) = @_;
    my %res;
    for my $line (split(/\n/, $data)) {
        if (my ($k, $v) = ($line =~ /^(\S+)\s+(.*)$/)) {
            $res{$k} = $v;
        } else {
            warn "bad 'key value' pair in flat keyed file\n";
        }
    }
    return \%res;
}

# The same files in the same order as get_memory_stat.
sub memory_stat {
    my ($dir) = @_;
    if ($memory_version == 2) {
        my $current = slurp("$dir/memory.current");
        my $swap = slurp("$dir/memory.swap.current");
        my $stat = flat_keyed(slurp("$dir/memory.stat"));
        chomp($current, $swap);
        return { mem => $current - $stat->{file}, swap => $swap };
    }
    my $stat = flat_keyed(slurp("$dir/memory.stat"));
    my $usage = slurp("$dir/memory.usage_in_bytes");
    my $memsw = slurp("$dir/memory.memsw.usage_in_bytes");
    chomp($usage, $memsw);
    return { mem => $usage - $stat->{total_cache}, swap => $memsw - $usage };
}

sub pressure_file {
    my ($path) = @_;
    my $num = qr/\d+\.\d+/;
    my $fh = IO::File->new($path, "r") or return undef;
    my %res;
    while (defined(my $line = <$fh>)) {
        next if $line !~
            /^(some|full)\s+avg10\=($num)\s+avg60\=($num)\s+avg300\=($num)\s+total\=(\d+)/;
        $res{$1} = { avg10 => $2, avg60 => $3, avg300 => $4, total => $5 };
    }
    $fh->close;
    return \%res;
}

sub pressure {
    my ($dir) = @_;
    my %res;
    for my $type (qw(cpu memory io)) {
        my $p = pressure_file("$dir/$type.pressure");
        $res{$type} = $p if $p;
    }
    return \%res;
}

# One guest as vmstatus handles it: memory in an eval (a failed read is a
# warning and 0), then the six avg10 values.
sub read_guest {
    my ($vmid) = @_;
    my %d;
    my $mem = eval { memory_stat("$memory_root/qemu.slice/$vmid.scope") } // {};
    warn "unable to get memory stat for $vmid - $@" if $@;
    $d{memhost} = $mem->{mem} // 0;
    $d{mem_ok} = defined($mem->{mem});
    my $p = pressure("$root/qemu.slice/$vmid.scope");
    for my $type (qw(cpu io memory)) {
        for my $kind (qw(some full)) {
            $d{"pressure$type$kind"} = $p->{$type}->{$kind}->{avg10};
        }
    }
    return \%d;
}

sub read_vmids {
    my $fh = IO::File->new($vmid_file, "r") or die "can't open '$vmid_file'\n";
    my @ids = grep { /^\d+$/ } map { chomp; $_ } <$fh>;
    $fh->close;
    return \@ids;
}

my $vmids = $vmid_file ne '' ? read_vmids() : [];

if ($check) {
    my ($memory, $pressures) = (0, 0);
    for my $vmid (@$vmids) {
        my $d = read_guest($vmid);
        $memory++ if $d->{mem_ok};
        $pressures++ if 6 == grep { defined($d->{$_}) } grep { /^pressure/ } keys %$d;
    }
    print "guests " . scalar(@$vmids) . " memory $memory pressure $pressures\n";
    exit(0);
}

my $stop = 0;
$SIG{TERM} = $SIG{INT} = sub { $stop = 1 };
while (!$stop) {
    my %status;
    $status{$_} = read_guest($_) for @$vmids;
    my $now = time();
    sleep(int($now) + 1 - $now);
}
