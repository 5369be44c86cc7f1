package service

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os/user"
	"strings"
	"time"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/mgr"
)

// FilePath is empty: the service manager keeps the service in its own database.
func FilePath() (string, error) { return "", nil }

// restartAfter is the recovery action's wait after serve fails.
const restartAfter = 5 * time.Second

func install(s Spec, o Options) error {
	body, err := Render("windows", s)
	if err != nil {
		return err
	}
	if o.DryRun {
		fmt.Fprintf(o.Out, "would register the %s service, as these commands do:\n%s", Name, body)
		return nil
	}
	u, err := user.Current()
	if err != nil {
		return fmt.Errorf("this account's name is unknown (%w); the service must run as you", err)
	}
	fmt.Fprintf(o.Out, "the %s service runs as %s, so it serves your comm home; that account's password: ", Name, u.Username)
	password, err := readLine(o.Stdin)
	if err != nil {
		return err
	}
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("the service manager could not be reached (%w); run sotd service install from an elevated (Administrator) prompt", err)
	}
	defer m.Disconnect()
	if old, err := m.OpenService(Name); err == nil {
		old.Close()
		return fmt.Errorf("a %s service is already registered; run sotd service uninstall first", Name)
	}
	sv, err := m.CreateService(Name, s.Binary, mgr.Config{
		StartType:        mgr.StartAutomatic,
		DisplayName:      Display,
		Description:      Description,
		ServiceStartName: u.Username,
		Password:         password,
	}, "serve")
	if err != nil {
		return fmt.Errorf("the %s service could not be registered: %w", Name, err)
	}
	defer sv.Close()
	if err := setEnvironment(s.Env); err != nil {
		sv.Delete()
		return err
	}
	restart := mgr.RecoveryAction{Type: mgr.ServiceRestart, Delay: restartAfter}
	if err := sv.SetRecoveryActions([]mgr.RecoveryAction{restart, restart, restart}, uint32((24 * time.Hour).Seconds())); err != nil {
		fmt.Fprintf(o.Out, "the service will not be restarted after a failure: %v\n", err)
	}
	fmt.Fprintf(o.Out, "registered the %s service: %q serve, as %s\n", Name, s.Binary, u.Username)
	if err := sv.Start(); err != nil {
		return fmt.Errorf("the %s service is registered but did not start (%w); a logon failure means the password was wrong or %s lacks the right to log on as a service (grant it in secpol.msc), then run sc.exe start %s", Name, err, u.Username, Name)
	}
	fmt.Fprintf(o.Out, "started the %s service\n", Name)
	return nil
}

// setEnvironment gives the service its variables: the manager reads them from
// the Environment value of the service's key when it starts the process.
func setEnvironment(env []Var) error {
	if len(env) == 0 {
		return nil
	}
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, `SYSTEM\CurrentControlSet\Services\`+Name, registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("the %s service's environment could not be set (%w); it was not registered", Name, err)
	}
	defer k.Close()
	vals := make([]string, len(env))
	for i, v := range env {
		vals[i] = v.Name + "=" + v.Value
	}
	if err := k.SetStringsValue("Environment", vals); err != nil {
		return fmt.Errorf("the %s service's environment could not be set (%w); it was not registered", Name, err)
	}
	return nil
}

func readLine(r io.Reader) (string, error) {
	if r == nil {
		return "", errors.New("no password was given on stdin")
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("no password was given on stdin (%w)", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// stopWait bounds the wait for a stopping service before it is deleted.
const stopWait = 30 * time.Second

func uninstall(o Options) error {
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("the service manager could not be reached (%w); run sotd service uninstall from an elevated (Administrator) prompt", err)
	}
	defer m.Disconnect()
	sv, err := m.OpenService(Name)
	if errors.Is(err, windows.ERROR_SERVICE_DOES_NOT_EXIST) {
		fmt.Fprintf(o.Out, "no %s service is registered: nothing to uninstall\n", Name)
		return nil
	}
	if err != nil {
		return fmt.Errorf("the %s service could not be opened: %w", Name, err)
	}
	defer sv.Close()
	if o.DryRun {
		fmt.Fprintf(o.Out, "would stop and delete the %s service\n", Name)
		return nil
	}
	if st, err := sv.Control(svc.Stop); err == nil {
		for deadline := time.Now().Add(stopWait); st.State != svc.Stopped && time.Now().Before(deadline); {
			time.Sleep(300 * time.Millisecond)
			if st, err = sv.Query(); err != nil {
				break
			}
		}
	}
	if err := sv.Delete(); err != nil {
		return fmt.Errorf("the %s service could not be deleted: %w", Name, err)
	}
	fmt.Fprintf(o.Out, "stopped and deleted the %s service\n", Name)
	return nil
}
