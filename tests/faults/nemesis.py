"""tests/faults/nemesis.py: network faults between cluster members, made
with nftables on loopback, in a table of the test's own.

Every member listens on an address of its own, 127.A.B.i; but a connection
a member dials leaves from 127.0.0.1 (the kernel's source for every 127/8
destination: neither our server nor the reference binds its outgoing
sockets), so an address alone does not say which member dialed.  Each
member therefore runs with a group id of its own (see group_command()),
and the table's first rule marks every new connection (conntrack) with the
group id of the process that opened it.  A fault between members A and B
then drops the packets of connections marked A whose original destination
is B's address, and of those marked B to A's: both directions of every
connection between the two, and nothing else on the machine (other
processes' connections carry no mark of ours).  The marks are set when a
connection opens, so the table is installed before the first member starts
and stays until the last one stops; faults only change the chain "faults".

    net = NetFaults({"s1": ("127.9.8.1", 50001), ...})
    net.install()
    net.cut([("s1", "s2"), ("s1", "s3")])     # partitions
    net.lose([("s1", "s2")], 30)              # 30% of packets dropped
    net.heal()                                # no fault left
    net.remove()                              # always, in a finally

available() says whether this machine can do it (root, nft, setpriv, a
table that loads), and why not.  sweep() deletes the tables of test runs
that died without removing theirs (their process id is in the name);
"nemesis.py --sweep" does it from a shell trap.
"""
import os
import random
import shutil
import subprocess

TABLE_PREFIX = "ovsdb_faults_"


def _nft(script):
    """Runs an nft script (one atomic transaction); raises RuntimeError with
    nft's message if it fails."""
    p = subprocess.run(["nft", "-f", "-"], input=script, text=True,
                       capture_output=True, timeout=30)
    if p.returncode != 0:
        raise RuntimeError("nft: %s" % (p.stderr.strip() or p.stdout.strip()))


def available():
    """Returns (True, "") if nftables faults work here, else (False, WHY)."""
    if os.geteuid() != 0:
        return False, "not root (nftables and setpriv --regid need root)"
    for prog in ("nft", "setpriv"):
        if shutil.which(prog) is None:
            return False, "%s is not installed" % prog
    name = "%sprobe_%d" % (TABLE_PREFIX, os.getpid())
    try:
        _nft("table inet %s {\n chain out {\n"
             "  type filter hook output priority 0; policy accept;\n"
             "  ct state new meta skgid 1 ct mark set 1\n"
             "  ct mark 1 numgen random mod 100 < 30 drop\n }\n}\n" % name)
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        return False, "cannot load an nftables table: %s" % e
    _nft("delete table inet %s\n" % name)
    return True, ""


def sweep():
    """Deletes the tables of dead test processes."""
    p = subprocess.run(["nft", "list", "tables"], capture_output=True,
                       text=True, timeout=30)
    for line in p.stdout.splitlines():
        words = line.split()
        if len(words) != 3 or not words[2].startswith(TABLE_PREFIX):
            continue
        pid = words[2][len(TABLE_PREFIX):].split("_")[-1]
        if pid.isdigit() and not os.path.exists("/proc/%s" % pid):
            subprocess.run(["nft", "delete", "table", words[1], words[2]],
                           capture_output=True, timeout=30)


def pick_groups(n):
    """N group ids for the members of one test run: consecutive, from a
    random base, so that concurrent runs do not share marks."""
    base = random.randrange(40000, 60000, 16)
    return [base + i for i in range(n)]


def pick_subnet():
    """A random 127.A.B. prefix for one test run's member addresses."""
    return "127.%d.%d." % (random.randint(100, 250), random.randint(1, 254))


def group_command(gid, argv):
    """ARGV run with real, effective and saved group id GID and no
    supplementary groups (the user, root, is unchanged)."""
    return ["setpriv", "--regid=%d" % gid, "--clear-groups", "--"] + argv


class NetFaults:
    def __init__(self, members):
        """MEMBERS maps each member's name to (address, group id)."""
        self.members = dict(members)
        self.table = "%s%d" % (TABLE_PREFIX, os.getpid())
        self.installed = False
        self.faults = []        # Human-readable, for the log.

    def install(self):
        rules = "".join("  ct state new meta skgid %d ct mark set %d\n"
                        % (gid, gid) for _, gid in self.members.values())
        _nft("table inet %s {\n"
             " chain faults {\n }\n"
             " chain out {\n"
             "  type filter hook output priority 0; policy accept;\n"
             "%s"
             "  ct mark != 0 jump faults\n"
             " }\n}\n" % (self.table, rules))
        self.installed = True

    def _set(self, pairs, loss):
        lines = ["flush chain inet %s faults" % self.table]
        match = "numgen random mod 100 < %d " % loss if loss else ""
        for a, b in pairs:
            (addr_a, gid_a), (addr_b, gid_b) = (self.members[a],
                                                self.members[b])
            for gid, addr in ((gid_a, addr_b), (gid_b, addr_a)):
                lines.append("add rule inet %s faults ct mark %d "
                             "ct original ip daddr %s %sdrop"
                             % (self.table, gid, addr, match))
        _nft("\n".join(lines) + "\n")
        self.faults = ["%s-%s%s" % (a, b, " %d%% loss" % loss if loss else "")
                       for a, b in pairs]

    def cut(self, pairs):
        """Replaces the faults by partitions between each pair (A, B)."""
        self._set(pairs, None)

    def lose(self, pairs, percent):
        """Replaces the faults by PERCENT% packet loss between each pair."""
        self._set(pairs, percent)

    def heal(self):
        if self.installed:
            _nft("flush chain inet %s faults\n" % self.table)
        self.faults = []

    def remove(self):
        """Deletes the table (and with it every fault); never raises."""
        if not self.installed:
            return
        try:
            _nft("delete table inet %s\n" % self.table)
            self.installed = False
        except (RuntimeError, OSError, subprocess.SubprocessError):
            pass


if __name__ == "__main__":
    # "nemesis.py --sweep": what a shell trap runs after the driver died.
    import sys
    if sys.argv[1:] != ["--sweep"]:
        sys.exit("usage: nemesis.py --sweep")
    if available()[0]:
        sweep()
