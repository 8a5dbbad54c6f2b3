# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the VM tests that judge what a person sees and hears from outside the daemon
# (sourced, POSIX sh; vm_devices, vm_vdr_codecs, vm_vdr_zap; docs/testing.md): qemu's
# bochs-display (the guest's /dev/dri/card0) captured by qemu's monitor `screendump` on the
# guest's request, qemu's Intel HDA (a real ALSA card) whose playback qemu writes to a WAV on
# the host. The host side sets $capture_here (tests/vm); the guest side needs lib.sh's check
# and wait_for and $out (the results share).

# ---- host ------------------------------------------------------------------------------------
# the display and the sound card: 720x576 (a TV picture's size: a standard-definition picture
# is shown unscaled) and an HDA whose output goes to SHARE/sound.wav (48 kHz stereo)
capture_devices() {
	echo "-device bochs-display,xres=720,yres=576 -device intel-hda -device hda-output,audiodev=a0
 -audiodev wav,id=a0,path=$1/sound.wav,out.frequency=48000,out.channels=2"
}

# capture_vm SHARE QEMU_DEVICES COMMAND: scripts/vm.sh COMMAND with those devices and a monitor
# socket, the screendump requests of the guest served meanwhile (devices-judge.py screendumps:
# SHARE/req-NAME -> SHARE/NAME.ppm, SHARE/done-NAME); vm.sh's status
capture_vm() {
	rm -f "$1"/req-* "$1"/done-* "$1/judge.list"
	_sock=$(mktemp -u "${TMPDIR:-/tmp}/ffdvb-mon.XXXXXX")
	# python itself in the background (not through a shell function, whose subshell is what $!
	# would name: killing that left python waiting for ever, holding ctest's pipe)
	python3 "$capture_here/devices-judge.py" screendumps "$_sock" "$1" &
	_server=$!
	# FFDVB_CAPTURE=1 in the guest: the capture devices are there (a script that also runs
	# without them, as vdr-zap.sh in bench/, uses them only then)
	VM_ENV="FFDVB_CAPTURE ${VM_ENV:-}" FFDVB_CAPTURE=1 \
	VM_QEMU_ARGS="$2 -monitor unix:$_sock,server=on,wait=off ${VM_QEMU_ARGS:-}" \
		bash "$capture_here/../../scripts/vm.sh" "$3"
	_rc=$?
	kill "$_server" 2> /dev/null
	wait "$_server" 2> /dev/null
	rm -f "$_sock" "$1/.vm/rc"
	return $_rc
}

# capture_judge SHARE: the judgements the guest listed in SHARE/judge.list (capture_expect), one
# devices-judge.py verb a line: "match NAME GOOD.ts OTHER.ts..." (the screendump SHARE/NAME.ppm),
# "tones HZ..." (SHARE/sound.wav); their PASS/FAIL lines, the number failed in $capture_fails
capture_judge() {
	_share=$1
	capture_fails=0
	if [ ! -s "$_share/judge.list" ]; then
		echo "FAIL judge: the guest listed nothing to judge ($_share/judge.list)"
		capture_fails=1
		return
	fi
	while read -r _verb _args; do
		# shellcheck disable=SC2086 # the arguments are a word list
		case $_verb in
		match) set -- $_args; _name=$1; shift
		       python3 "$capture_here/devices-judge.py" match "$_name" "$_share/$_name.ppm" "$@" ;;
		tones) python3 "$capture_here/devices-judge.py" tones "$_share/sound.wav" $_args ;;
		*) echo "FAIL judge: unknown judgement '$_verb'"; false ;;
		esac < /dev/null || capture_fails=$((capture_fails + 1))
	done < "$_share/judge.list"
}

# capture_run SHARE COMMAND: COMMAND in the VM with the display and the sound card
# (capture_devices), then the guest's judgements from outside (capture_judge); 77 when the VM
# cannot start, else 0 only when both the guest and every judgement passed
capture_run() {
	mkdir -p "$1"
	rm -f "$1"/*.ppm "$1/sound.wav"
	_run_rc=0
	capture_vm "$1" "$(capture_devices "$1")" "$2" || _run_rc=$?
	[ "$_run_rc" = 77 ] && return 77
	capture_judge "$1"
	echo "capture: guest exit status $_run_rc, $capture_fails judgements from outside failed"
	[ "$_run_rc" = 0 ] && [ "$capture_fails" = 0 ]
}

# ---- guest -----------------------------------------------------------------------------------
# capture_display_up [DRIVER]: the display's DRM driver (bochs; virtio_gpu for virtio-vga) loaded
capture_display_up() {
	modprobe "${1:-bochs}" 2> /dev/null
	wait_for '[ -c /dev/dri/card0 ]' 50
	check $? "display: /dev/dri/card0 (${1:-bochs} DRM driver)"
}
# capture_sound_up: the sound card (snd-hda-intel), its mixer at 100 % (it starts muted)
capture_sound_up() {
	modprobe snd-hda-intel 2> /dev/null
	wait_for '[ -c /dev/snd/pcmC0D0p ]' 100
	check $? "sound card: /dev/snd/pcmC0D0p (snd-hda-intel)"
	amixer -q -c 0 sset Master 100% unmute > "$out/amixer.log" 2>&1
	check $? "sound card: Master 100%, unmuted ($(cat "$out/amixer.log"))"
}
# capture_ask NAME: asks the host for a screendump to $out/NAME.ppm (taken within ~0.1 s while
# the host serves no other; does not wait)
capture_ask() { touch "$out/req-$1"; }
# capture_expect VERB ARGS...: a judgement for the host after the run (capture_judge)
capture_expect() { echo "$*" >> "$out/judge.list"; }
# capture_wait NAME: waits up to 30 s for the screendump NAME; status 0 when it is there
capture_wait() { wait_for "[ -e '$out/done-$1' ]" 300 && [ -s "$out/$1.ppm" ]; }
