#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages (make deb): lintian, one version everywhere, what the
# packages hold, and DKMS next to a stock Debian 6.12 kernel, in a private
# Debian 12 root made with mmdebstrap (the host's packages and kernel are
# not touched):
#  - zswap-wb-dkms installed where only a stock kernel's headers are, and a
#    stock kernel's headers installed after zswap-wb-dkms, must both succeed,
#    and dkms must say why it skipped the module;
#  - zswap-wb-dkms and zswbctl installed together, as the fleet test's
#    guest installs them, where python3 is not: zswbctl needs shared
#    libraries only (zswbctl-plot, a package of its own, needs python3);
#    zswbctl-prometheus.timer is enabled (the root runs no systemd: read
#    with systemctl --root), its service's command writes zswap_wb_up 0
#    there, where no module is, and a purge of both leaves no file behind;
#  - with the hooked kernel's packages of 'make kernel-deb' (found in
#    ZSWB_KERNEL_DEB_DIR, default $ZSWB_CACHE/kernel-deb), installing them
#    after zswap-wb-dkms must build and install the module for that kernel.
# Downloads (the stock headers, the private root) are cached in
# $ZSWB_CACHE/debs. ZSWB_STOCK_ABI picks the stock kernel (default: the
# newest 6.12.*+deb12 in apt's lists). Prints KTAP.
. "$(dirname "$0")/lib.sh"
zswb_need mmdebstrap lintian dpkg-dev util-linux binutils systemd

debdir=$ZSWB_CACHE/deb
cache=$ZSWB_CACHE/debs
kdebdir=${ZSWB_KERNEL_DEB_DIR:-$ZSWB_CACHE/kernel-deb}
t=$out
mkdir -p "$cache"

log() { sed 's/^/# /' "$@"; }
# check DESC CMD...: one test, passed if CMD succeeds.
check() {
	local desc=$1 start=$SECONDS
	shift
	if "$@"; then ktap_test_pass "$desc"; else ktap_test_fail "$desc"; fi
	echo "# $((SECONDS - start)) s (at $SECONDS s)"
}

# in_root ROOT CMD...: CMD chrooted into ROOT, with /proc mounted in a mount
# namespace of its own, so nothing stays mounted when it ends.
in_root() {
	local r=$1
	shift
	unshare --mount --propagation private --fork -- sh -c \
		'mount -t proc proc "$0/proc" && exec chroot "$0" /usr/bin/env -i \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"' "$r" "$@"
}

# deb_depends DEB: the packages DEB depends on, but libc6, one a word
# (the first of each alternative, without versions).
deb_depends() {
	dpkg-deb -f "$1" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*//' |
		awk '$1 != "libc6" && $1 != "" { print $1 }' | tr '\n' ' '
}

# apt's lists: a fresh machine may have none yet.
apt_lists() {
	[ -n "$(apt-cache pkgnames linux-headers-6.12.)" ] && return 0
	[ -n "${ZSWB_APT_UPDATED:-}" ] && return 1
	apt-get update -qq && export ZSWB_APT_UPDATED=1
}

# The private root: Debian 12 with dkms, the dependencies of zswap-wb-dkms
# and zswbctl (dpkg -i does not fetch them; zswbctl's shared libraries, as
# its package names them) and of the stock headers, from the Debian
# archives apt is configured with; cached as a tarball.
root_pkgs="dkms gcc linux-base gcc-12 make libelf1 libssl3 zlib1g pahole kmod"
mkroot_tar() {
	local tar=$cache/rootfs-bookworm-$(echo "$root_pkgs" | sha256sum | cut -c1-12).tar
	if [ ! -s "$tar" ]; then
		apt-get indextargets --format 'deb $(REPO_URI) $(RELEASE) $(COMPONENT)' \
			'Identifier: Packages' 'Origin: Debian' | sort -u > "$t/sources.list"
		[ -s "$t/sources.list" ] || { echo "no Debian archive in apt's configuration" > "$t/root.log"; return 1; }
		rm -rf "$tar.new"
		mmdebstrap --variant=apt --format=tar --include="${root_pkgs// /,}" \
			--aptopt='APT::Install-Recommends "false"' \
			bookworm "$tar.new" "$t/sources.list" > "$t/root.log" 2>&1 || return 1
		mv "$tar.new" "$tar"
	fi
	echo "$tar"
}

# newroot DIR: a fresh private root in DIR, with the packages in /debs.
# dpkg without fsync, as in any throw-away root: the stock headers
# install several times faster.
newroot() {
	mkdir -p "$1" && tar -C "$1" -xf "$roottar" && mkdir -p "$1/debs" &&
		echo force-unsafe-io > "$1/etc/dpkg/dpkg.cfg.d/unsafe-io" &&
		cp "$debdir"/zswap-wb-dkms_*.deb "$1/debs/" && cp "${stock_debs[@]}" "$1/debs/"
}

# The stock kernel's headers packages, downloaded once.
get_stock() {
	local p f
	abi=${ZSWB_STOCK_ABI:-$(apt-cache pkgnames linux-headers-6.12. |
		sed -n 's/^linux-headers-\(6\.12\.[0-9]*+deb12\)-amd64$/\1/p' | sort -V | tail -1)}
	[ -n "$abi" ] || { echo "apt knows no linux-headers-6.12.*+deb12-amd64" > "$t/stock.log"; return 1; }
	stock_debs=()
	for p in linux-kbuild-$abi linux-headers-$abi-common linux-headers-$abi-amd64; do
		f=$(ls "$cache/${p}"_*.deb 2>/dev/null | sort -V | tail -1)
		if [ -z "$f" ]; then
			(cd "$cache" && apt-get download "$p") >> "$t/stock.log" 2>&1 || return 1
			f=$(ls "$cache/${p}"_*.deb | sort -V | tail -1)
		fi
		stock_debs+=("$f")
	done
}

ktap_print_header
ktap_set_plan 16

# 1: the packages
rm -f "$debdir"/*.deb
start=$SECONDS
make -s deb > "$t/deb.log" 2>&1
echo "# make deb: $((SECONDS - start)) s"
dkms_deb=$(ls "$debdir"/zswap-wb-dkms_*_all.deb 2>/dev/null)
ctl_deb=$(ls "$debdir"/zswbctl_*_amd64.deb 2>/dev/null)
changes=$(ls "$debdir"/zswap-wb_*.changes 2>/dev/null)
if [ -n "$dkms_deb" ] && [ -n "$ctl_deb" ] && [ -n "$changes" ]; then
	ktap_test_pass "make deb builds zswap-wb-dkms and zswbctl"
	root_pkgs="$root_pkgs $(deb_depends "$ctl_deb")"
else
	tail -30 "$t/deb.log" | log
	ktap_test_fail "make deb builds zswap-wb-dkms and zswbctl"
	ktap_exit_fail_msg "no packages to test"
fi

# 2: lintian, with every tag shown; the overridden ones are explained in
# debian/*lintian-overrides.
lintian -I --pedantic "$changes" > "$t/lintian.log" 2>/dev/null
lrc=$?
log "$t/lintian.log"
check "lintian -I --pedantic on $(basename "$changes"): no tag" \
	test "$lrc" = 0 -a ! -s "$t/lintian.log"

# 3: one version: dkms.conf, debian/changelog, MODULE_VERSION, the packages.
ver_conf=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' dkms.conf)
ver_chlog=$(dpkg-parsechangelog -S Version)
ver_mod=$(sed -n 's/^MODULE_VERSION("\([^"]*\)");$/\1/p' module/main.c)
ver_debs="$(dpkg-deb -f "$dkms_deb" Version) $(dpkg-deb -f "$ctl_deb" Version)"
echo "# dkms.conf $ver_conf, debian/changelog $ver_chlog, module/main.c MODULE_VERSION ${ver_mod:-(none)}, packages $ver_debs"
check "one version: dkms.conf, debian/changelog, MODULE_VERSION, the .debs" \
	test -n "$ver_conf" -a "$ver_conf" = "$ver_chlog" -a "$ver_conf" = "$ver_mod" \
	-a "$ver_debs" = "$ver_conf $ver_conf"

# 4: the DKMS source holds what the module build needs, nothing else.
src=usr/src/zswap_wb-$ver_conf
{ echo dkms.conf; echo Kbuild; echo LICENSE; echo module/Kbuild
  git ls-files --cached --others --exclude-standard 'module/*.[ch]'; } | sort > "$t/want"
dpkg-deb -c "$dkms_deb" | awk '$1 !~ /^d/ { print $6 }' | sed -n "s|^\./$src/||p" | sort > "$t/have"
dpkg-deb -c "$dkms_deb" | awk '$1 !~ /^d/ { print $6 }' | grep -v "^\./$src/\|^\./usr/share/doc/\|^\./usr/share/lintian/overrides/" >> "$t/have"
diff "$t/want" "$t/have" > "$t/src.diff"
log "$t/src.diff"
check "zswap-wb-dkms: /$src holds dkms.conf, Kbuild, LICENSE, module/ sources only" \
	test ! -s "$t/src.diff"

# 5: zswbctl: the tool, dynamically linked, and its man page.
dpkg-deb -x "$ctl_deb" "$t/ctl"
check "zswbctl: /usr/sbin/zswbctl (dynamic, hardened) and zswbctl(8)" \
	sh -c "readelf -l '$t/ctl/usr/sbin/zswbctl' | grep -q INTERP &&
		readelf -d '$t/ctl/usr/sbin/zswbctl' | grep -q BIND_NOW &&
		test -s '$t/ctl/usr/share/man/man8/zswbctl.8.gz'"

# 6, 7: the exporter's units, as systemd reads them (the host's units
# beside them for the targets they name); the documents.
units=lib/systemd/system/zswbctl-prometheus
mkdir -p "$t/ctlroot" && cp -a "$t/ctl/." "$t/ctlroot/" && cp -rn /lib/systemd/system/. "$t/ctlroot/lib/systemd/system/"
(cd "$t" && systemd-analyze verify --man=no --root="$t/ctlroot" zswbctl-prometheus.timer \
	zswbctl-prometheus.service) > "$t/verify.log" 2>&1
vrc=$?
log "$t/verify.log"
check "zswbctl: zswbctl-prometheus.service and .timer pass systemd-analyze verify, no warning" \
	sh -c "test $vrc = 0 -a ! -s '$t/verify.log' && test -s '$t/ctl/$units.service' &&
		grep -qx 'WantedBy=timers.target' '$t/ctl/$units.timer' &&
		grep -qx 'OnUnitActiveSec=1min' '$t/ctl/$units.timer'"
doc=$t/ctl/usr/share/doc/zswbctl
check "zswbctl: README.md, the admin guide and the node_exporter drop-in in /usr/share/doc/zswbctl" \
	sh -c "zcat '$doc/README.md.gz' | cmp -s - README.md &&
		zcat '$doc/zswap_wb.rst.gz' | cmp -s - Documentation/zswap_wb.rst &&
		grep -q '^ExecStart=.*--collector.vmstat.fields=.*pgrotated.*zswp' \
			'$doc/examples/prometheus-node-exporter-zswap_wb.conf'"

# 8: zswbctl pulls no interpreter onto a node; the plot helper carries it.
plot_deb=$(ls "$debdir"/zswbctl-plot_*_all.deb 2>/dev/null)
ctl_dep=$(dpkg-deb -f "$ctl_deb" Depends Pre-Depends Recommends)
plot_dep=$(dpkg-deb -f "$plot_deb" Depends 2>/dev/null)
echo "# zswbctl: $(echo $ctl_dep); zswbctl-plot: ${plot_dep:-(no package)}"
check "zswbctl depends on shared libraries only; zswbctl-plot on python3 and matplotlib" \
	sh -c "echo '$ctl_dep' | grep -q '^Depends: libc6' &&
		! echo '$ctl_dep' | grep -qi 'python\|matplotlib' &&
		echo '$plot_dep' | grep -q 'python3,.*python3-matplotlib'"

# 9: the rules, for the Prometheus server: a package of their own, for
# any architecture, with their promtool tests; none left in zswbctl.
rules_deb=$(ls "$debdir"/zswap-wb-prometheus-rules_*_all.deb 2>/dev/null)
rules=usr/share/zswbctl/prometheus
printf './%s/%s\n' $rules zswap_wb.alerts.test.yml $rules zswap_wb.alerts.yml \
	$rules zswap_wb.rules.test.yml $rules zswap_wb.rules.yml > "$t/rules.want"
{ [ -n "$rules_deb" ] && dpkg-deb -c "$rules_deb"; } | awk '$1 !~ /^d/ { print $6 }' |
	grep -v '^\./usr/share/doc/' | sort > "$t/rules.have"
diff "$t/rules.want" "$t/rules.have" | log
check "zswap-wb-prometheus-rules (all): the recording rules and alerts with their tests; zswbctl has none" \
	sh -c "test -n '$rules_deb' && cmp -s '$t/rules.want' '$t/rules.have' &&
		test \"\$(dpkg-deb -f '$rules_deb' Architecture)\" = all &&
		! dpkg-deb -c '$ctl_deb' | grep -q '$rules'"

# 10..15: a stock kernel in the private root.
stock_ok=0 abi="6.12.*+deb12"
start=$SECONDS
if apt_lists && roottar=$(mkroot_tar) && get_stock; then
	echo "# $((SECONDS - start)) s"
	stock_ok=1
	ktap_test_pass "private root and the stock $abi-amd64 headers ready"
else
	tail -20 "$t/root.log" "$t/stock.log" 2>/dev/null | log
	ktap_test_fail "private root and the stock $abi-amd64 headers ready"
fi
kver=$abi-amd64
# The stock headers depend on the kernel image, which the test does not
# need: --force-depends for those packages only.
inst_stock="dpkg -i --force-depends /debs/linux-kbuild-* /debs/linux-headers-*"
skip_msg="zswap_wb: skipped for kernel $kver: its config has no CONFIG_ZSWAP_WRITEBACK_HOOK"

stock_first() {
	local r=$t/r1 rc1 rc2
	newroot "$r" || return 1
	in_root "$r" sh -c "$inst_stock" > "$t/a1.log" 2>&1; rc1=$?
	in_root "$r" sh -c "dpkg -i /debs/zswap-wb-dkms_*.deb" > "$t/a2.log" 2>&1; rc2=$?
	echo "# dpkg -i stock headers: $rc1; then dpkg -i zswap-wb-dkms: $rc2"
	in_root "$r" dkms status > "$t/a3.log" 2>&1
	log "$t/a2.log" "$t/a3.log"
	[ "$rc1" = 0 ] && [ "$rc2" = 0 ] || { tail -20 "$t/a1.log" | log; return 1; }
	grep -q "BUILD_EXCLUSIVE" "$t/a2.log" && grep -q "$skip_msg" "$t/a2.log" &&
		grep -q "^zswap_wb/$ver_conf: added" "$t/a3.log"
}
dkms_first() {
	local r=$t/r2 rc rc1 rc2 rc3 rc4
	newroot "$r" || return 1
	in_root "$r" sh -c "dpkg -i /debs/zswap-wb-dkms_*.deb" > "$t/b1.log" 2>&1; rc1=$?
	in_root "$r" sh -c "$inst_stock" > "$t/b2.log" 2>&1; rc2=$?
	echo "# dpkg -i zswap-wb-dkms: $rc1; then dpkg -i stock headers: $rc2"
	grep -i "dkms\|zswap_wb\|error" "$t/b2.log" | log
	[ "$rc1" = 0 ] && [ "$rc2" = 0 ] && grep -q "$skip_msg" "$t/b2.log" || return 1
	# What every kernel package's postinst runs, and dkms itself.
	in_root "$r" /etc/kernel/postinst.d/dkms "$kver" > "$t/b3.log" 2>&1; rc3=$?
	in_root "$r" dkms autoinstall -k "$kver" > "$t/b4.log" 2>&1; rc4=$?
	echo "# /etc/kernel/postinst.d/dkms $kver: $rc3; dkms autoinstall -k $kver: $rc4"
	log "$t/b4.log"
	[ "$rc3" = 0 ] && [ "$rc4" = 0 ] && grep -q "$skip_msg" "$t/b3.log" &&
		grep -q "$skip_msg" "$t/b4.log" || return 1
	# An explicit build is still refused, with dkms's own reason.
	in_root "$r" dkms build zswap_wb/"$ver_conf" -k "$kver" > "$t/b5.log" 2>&1
	rc=$?
	echo "# dkms build -k $kver: $rc"
	[ "$rc" = 77 ] && grep -q "BUILD_EXCLUSIVE" "$t/b5.log" || { log "$t/b5.log"; return 1; }
	[ -z "$(find "$r/lib/modules" -name 'zswap_wb.ko*')" ]
}
# files ROOT: every file of ROOT but dpkg's database, logs and caches.
files() {
	(cd "$1" && find . -xdev \( -path ./proc -o -path ./debs -o -path ./var/lib/dpkg -o \
		-path ./var/log -o -path ./var/cache -o -path ./tmp \) -prune -o -print) | sort
}
# The two packages every node of the fleet installs, in one dpkg -i as
# fleet_test.sh does, where python3 is not; the tool runs there.
node_install() {
	local r=$t/r0 rc
	newroot "$r" && cp "$ctl_deb" "$r/debs/" || return 1
	[ ! -e "$r/usr/bin/python3" ] || { echo "# the private root has python3"; return 1; }
	files "$r" > "$t/files.before"
	in_root "$r" sh -c "dpkg -i /debs/zswap-wb-dkms_*.deb /debs/zswbctl_*.deb" > "$t/n1.log" 2>&1
	rc=$?
	echo "# dpkg -i zswap-wb-dkms zswbctl: $rc"
	[ "$rc" = 0 ] || { tail -20 "$t/n1.log" | log; return 1; }
	in_root "$r" zswbctl --version > "$t/n2.log" 2>&1 || { log "$t/n2.log"; return 1; }
	grep -q "^zswbctl $ver_conf" "$t/n2.log"
}
# The timer enabled by the package's postinst; the service's command, as
# systemd would run it, where no module is: zswap_wb_up 0 alone, an exit
# status that the unit counts as success.
node_timer() {
	local r=$t/r0 en cmd ok rc prom=$t/r0/var/lib/prometheus/node-exporter/zswap_wb.prom
	en=$(systemctl --root="$r" is-enabled zswbctl-prometheus.timer 2>&1)
	echo "# systemctl --root is-enabled zswbctl-prometheus.timer: $en"
	[ "$en" = enabled ] && [ -L "$r/etc/systemd/system/timers.target.wants/zswbctl-prometheus.timer" ] ||
		return 1
	cmd=$(sed -n 's/^ExecStart=//p' "$r/$units.service")
	ok="0 $(sed -n 's/^SuccessExitStatus=//p' "$r/$units.service")"
	in_root "$r" sh -c "$cmd" > "$t/n3.log" 2>&1
	rc=$?
	echo "# $cmd: exit $rc (success: $ok)"
	log "$t/n3.log"
	case " $ok " in *" $rc "*) ;; *) return 1 ;; esac
	log "$prom"
	grep -qx 'zswap_wb_up 0' "$prom" && [ "$(stat -c %a "$prom")" = 644 ] &&
		[ "$(grep -v '^#' "$prom" | sed 's/[{ ].*//' | tr '\n' ' ')" = "zswap_wb_up zswap_wb_build_info " ]
}
# Purged, the packages leave nothing: the same files as before them.
node_purge() {
	local r=$t/r0 rc
	in_root "$r" dpkg --purge zswbctl zswap-wb-dkms > "$t/n4.log" 2>&1
	rc=$?
	echo "# dpkg --purge zswbctl zswap-wb-dkms: $rc"
	[ "$rc" = 0 ] || { log "$t/n4.log"; return 1; }
	files "$r" > "$t/files.after"
	diff "$t/files.before" "$t/files.after" > "$t/files.diff"
	log "$t/files.diff"
	[ ! -s "$t/files.diff" ]
}
if [ $stock_ok = 1 ]; then
	check "zswap-wb-dkms and zswbctl install together where python3 is not, and zswbctl runs" \
		node_install
	check "zswbctl-prometheus.timer enabled on install; its service writes zswap_wb_up 0 where no module is" \
		node_timer
	check "dpkg --purge zswbctl zswap-wb-dkms leaves no file of theirs" node_purge
	check "stock $kver headers, then zswap-wb-dkms: both install, dkms says why it skips" stock_first
	check "zswap-wb-dkms, then stock $kver headers: both install, dkms says why it skips" dkms_first
else
	ktap_test_fail "zswap-wb-dkms and zswbctl install together: no private root"
	ktap_test_fail "zswbctl-prometheus.timer enabled on install: no private root"
	ktap_test_fail "dpkg --purge zswbctl zswap-wb-dkms: no private root"
	ktap_test_fail "stock $kver headers, then zswap-wb-dkms: no private root"
	ktap_test_fail "zswap-wb-dkms, then stock $kver headers: no private root"
fi

# 16: the hooked kernel's packages of make kernel-deb.
hooked() {
	local r=$t/r3 rc1 rc2 krel ko
	newroot "$r" && cp "$kimg" "$khdr" "$r/debs/" || return 1
	krel=$(dpkg-deb -f "$kimg" Package); krel=${krel#linux-image-}
	dpkg-deb -c "$khdr" | grep "/usr/src/linux-headers-$krel/\.config$" >/dev/null ||
		{ echo "# $(basename "$khdr") has no .config"; return 1; }
	in_root "$r" sh -c "dpkg -i /debs/zswap-wb-dkms_*.deb" > "$t/c1.log" 2>&1; rc1=$?
	in_root "$r" sh -c "dpkg -i /debs/$(basename "$kimg") /debs/$(basename "$khdr")" > "$t/c2.log" 2>&1; rc2=$?
	echo "# dpkg -i zswap-wb-dkms: $rc1; then dpkg -i linux-image/headers-$krel: $rc2"
	ko=$(find "$r/lib/modules/$krel" -name 'zswap_wb.ko*' 2>/dev/null | head -1)
	[ "$rc1" = 0 ] && [ "$rc2" = 0 ] && [ -n "$ko" ] || {
		log "$t/c2.log"; cat "$r"/var/lib/dkms/zswap_wb/*/build/make.log 2>/dev/null | tail -20 | log
		return 1; }
	echo "# ${ko#"$r"}: $(modinfo -F vermagic "$ko"), version $(modinfo -F version "$ko")"
	[ "$(modinfo -F version "$ko")" = "$ver_conf" ]
}
kimg=$(ls "$kdebdir"/linux-image-*zswap-wb*_*.deb 2>/dev/null | grep -v -- -dbg_ | tail -1)
khdr=$(ls "$kdebdir"/linux-headers-*zswap-wb*_*.deb 2>/dev/null | tail -1)
if [ -z "$kimg" ] || [ -z "$khdr" ]; then
	ktap_test_skip "hooked kernel packages: none in $kdebdir (make kernel-deb)"
elif [ $stock_ok = 0 ]; then
	ktap_test_fail "hooked kernel packages, after zswap-wb-dkms: no private root"
else
	check "hooked kernel packages after zswap-wb-dkms: dkms builds and installs zswap_wb" hooked
fi

echo "# deb: $KTAP_CNT_PASS passed, $KTAP_CNT_FAIL failed, $KTAP_CNT_SKIP skipped"
ktap_finished
