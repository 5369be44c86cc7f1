package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/sotcomm/sotd/service"
)

func init() {
	verbs["service"] = verb{"install sotd serve as this OS's service", `
usage: sotd service install [--dry-run]
       sotd service uninstall [--dry-run]
       sotd service print [--os linux|darwin|windows [--bin PATH]]

install writes the service file that runs "sotd serve" by this binary's full
path, with $SOT_COMM_HOME, $SOT_SOCKET, $SOT_SELF_HOST, $SOT_HOSTS and
$XDG_CONFIG_HOME when they are set, and starts it:
  Linux    ~/.config/systemd/user/sotd.service, then systemctl --user enable --now sotd
           (printed to run by hand where systemctl is not on PATH)
  macOS    ~/Library/LaunchAgents/com.sotcomm.sotd.plist, then launchctl bootstrap
  Windows  the sotd service, registered with the service manager to run as you;
           it reads your account's password on stdin (run it elevated)
uninstall stops the service and removes it. --dry-run prints what would be
written and run and changes nothing. print shows the file for this OS, or for
--os with --bin naming sotd's full path there; for Windows, the sc.exe commands
install's registration amounts to.`, runService}
}

func runService(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return usageErr(stderr, "service", args)
	}
	sub := args[0]
	var dry bool
	goos, bin := runtime.GOOS, ""
	rest, ok := flags("service "+sub, args[1:], stderr, func(fs *flag.FlagSet) {
		switch sub {
		case "install", "uninstall":
			fs.BoolVar(&dry, "dry-run", false, "print what would be written and run; change nothing")
		case "print":
			fs.StringVar(&goos, "os", goos, "the OS to print the file for: "+strings.Join(service.OSes, ", "))
			fs.StringVar(&bin, "bin", "", "sotd's full path on that OS; default this binary's")
		}
	})
	if !ok || len(rest) > 0 || !slices.Contains([]string{"install", "uninstall", "print"}, sub) {
		return usageErr(stderr, "service", rest)
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "sotd service %s: %v\n", sub, err)
		return 1
	}
	o := service.Options{DryRun: dry, Out: stdout, Stdin: stdin}
	if sub == "uninstall" {
		if err := service.Uninstall(o); err != nil {
			return fail(err)
		}
		return 0
	}
	spec, err := service.Current()
	if err != nil {
		return fail(err)
	}
	if sub == "install" {
		if err := service.Install(spec, o); err != nil {
			return fail(err)
		}
		return 0
	}
	if bin != "" {
		spec.Binary = bin
	}
	body, err := service.Render(goos, spec)
	if err != nil {
		return fail(err)
	}
	stdout.Write(body)
	return 0
}
