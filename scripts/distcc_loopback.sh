# Sourced by the distcc test (t75) and bench (bench/distcc_validate.sh): a
# cluster of three distccd daemons on loopback (Debian's distcc), one job
# each, on three free ports side by side chosen from the caller's pid.
#   cluster_start DIR: start them (logs and pids in DIR), export
#     DISTCC_HOSTS and DISTCC_DIR; false when they do not all listen
#   cluster_stop_daemon PORT: kill one (a host dying mid-build)
#   cluster_stop: kill them all and remove their temp dir
# Sets cluster_ports ("P1 P2 P3") and cluster_base (P1).
cluster_base=$((30000 + ($$ % 2000) * 3))
cluster_ports="$cluster_base $((cluster_base + 1)) $((cluster_base + 2))"
cluster_dir=
# Root distccd runs its compiles as nobody: they get a TMPDIR anyone can
# use, in /tmp (the scripts' own is root's alone), removed at the end with
# what a killed daemon leaves in it.
cluster_tmp=

cluster_stop_daemon() {
	kill -KILL "$(cat "$cluster_dir/distccd-$1.pid" 2>/dev/null)" 2>/dev/null
	pkill -KILL -f -- "distccd .*--port $1 " 2>/dev/null
	rm -f "$cluster_dir/distccd-$1.pid"
}

cluster_stop() {
	for _p in $cluster_ports; do cluster_stop_daemon "$_p"; done
	[ -z "$cluster_tmp" ] || rm -rf "$cluster_tmp"
}

cluster_listening() {
	python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$1" 2>/dev/null
}

cluster_start() {
	cluster_dir=$1
	mkdir -p "$cluster_dir/distcc"
	cluster_tmp=$(mktemp -d /tmp/bw-distccd.XXXXXX) && chmod 1777 "$cluster_tmp"
	_hosts=
	for _p in $cluster_ports; do
		_hosts="$_hosts 127.0.0.1:$_p/1"
		TMPDIR=$cluster_tmp distccd --no-detach --daemon --listen 127.0.0.1 --allow 127.0.0.1 --port "$_p" --jobs 1 \
			--log-stderr --log-level error 2>>"$cluster_dir/distccd-$_p.log" &
		echo $! >"$cluster_dir/distccd-$_p.pid"
	done
	DISTCC_HOSTS=${_hosts# }
	DISTCC_DIR=$cluster_dir/distcc
	export DISTCC_HOSTS DISTCC_DIR
	unset DISTCC_VERBOSE DISTCC_LOG
	for _ in $(seq 50); do
		_up=0
		for _p in $cluster_ports; do cluster_listening "$_p" && _up=$((_up + 1)); done
		[ "$_up" -eq 3 ] && return 0
		sleep 0.1
	done
	return 1
}
