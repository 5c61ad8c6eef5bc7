//go:build !unix

package stdio

import (
	"os"
	"os/exec"
)

var (
	sigTerm = os.Interrupt
	sigKill = os.Kill
)

// setProcessGroup does nothing where process groups are not available.
func setProcessGroup(*exec.Cmd) {}

// signalGroup sends sig to the child.
func signalGroup(cmd *exec.Cmd, sig os.Signal) error { return cmd.Process.Signal(sig) }
