// Command kimops-plane runs the kimops integration-test control plane:
//
//	etcd  ->  kube-apiserver (with the aggregation layer)  ->  gardener-apiserver
//
// It is a thin wrapper around Gardener's own test helper
// github.com/gardener/gardener/test/envtest, which in turn uses
// controller-runtime's envtest:
//
//   - etcd and kube-apiserver are child processes started from the binaries in
//     $KUBEBUILDER_ASSETS (built from the Go module proxy by
//     scripts/testenv/build.sh);
//   - gardener-apiserver runs in this process, serves on its own loopback port,
//     stores its objects in the same etcd under the /registry-gardener prefix,
//     delegates authentication/authorization to kube-apiserver, and is
//     registered there through one APIService per Gardener group/version
//     (core.gardener.cloud/v1beta1, security.gardener.cloud/v1alpha1, ...).
//     Gardener's helper only returns once every APIService is Available and
//     every group/version is discoverable and listable.
//
// Once ready it provisions two distinct client-certificate users, "kcp" and
// "garden" (both in system:masters, i.e. cluster-admin), writes a kubeconfig
// and PEM files for each, plus plane.json, into --state-dir and then blocks
// until SIGINT/SIGTERM, on which it stops everything it started.
//
// It is started and stopped by scripts/testenv/up.sh and down.sh; run it by
// hand only for debugging.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager/signals"

	gardenerenvtest "github.com/gardener/gardener/test/envtest"
)

// users are the identities handed out to kimops. They are deliberately
// distinct so that no code can silently assume that the KCP (Kyma control
// plane) API and the Gardener API are reached with the same credentials.
var users = []string{"kcp", "garden"}

// planeInfo is written to <state-dir>/plane.json for scripts and tests.
type planeInfo struct {
	PID                   int               `json:"pid"`
	ChildPIDs             []int             `json:"childPids"`
	BinDir                string            `json:"binDir"`
	EtcdURL               string            `json:"etcdUrl"`
	KubeAPIServerURL      string            `json:"kubeApiserverUrl"`
	GardenerAPIServerPort int               `json:"gardenerApiserverPort"`
	Kubeconfigs           map[string]string `json:"kubeconfigs"`
	StartSeconds          float64           `json:"startSeconds"`
	StartedAt             string            `json:"startedAt"`
}

func main() {
	stateDir := flag.String("state-dir", "", "directory to write kubeconfigs, PEM files, plane.json and logs into (required)")
	startTimeout := flag.Duration("start-timeout", 3*time.Minute, "how long each component may take to become healthy")
	flag.Parse()
	if *stateDir == "" {
		fmt.Fprintln(os.Stderr, "kimops-plane: --state-dir is required")
		os.Exit(2)
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		fmt.Fprintln(os.Stderr, "kimops-plane: KUBEBUILDER_ASSETS must point at the directory holding etcd and kube-apiserver")
		os.Exit(2)
	}
	logf.SetLogger(zap.New(zap.UseDevMode(false)))

	if err := run(signals.SetupSignalHandler(), *stateDir, *startTimeout); err != nil {
		fmt.Fprintf(os.Stderr, "kimops-plane: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, stateDir string, startTimeout time.Duration) error {
	logDir := filepath.Join(stateDir, "logs")
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return err
	}
	// Our own pid, for down.sh (up.sh writes the same number; this makes it
	// right however we were started).
	if err := writeFileAtomic(filepath.Join(stateDir, "plane.pid"), []byte(strconv.Itoa(os.Getpid())+"\n")); err != nil {
		return err
	}
	openLog := func(name string) (*os.File, error) {
		return os.OpenFile(filepath.Join(logDir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	}
	etcdLog, err := openLog("etcd.log")
	if err != nil {
		return err
	}
	kasLog, err := openLog("kube-apiserver.log")
	if err != nil {
		return err
	}
	gasLog, err := openLog("gardener-apiserver.log")
	if err != nil {
		return err
	}

	began := time.Now()

	kubeEnv := &envtest.Environment{
		// etcd + kube-apiserver binaries; never downloaded.
		BinaryAssetsDirectory:    os.Getenv("KUBEBUILDER_ASSETS"),
		ControlPlaneStartTimeout: startTimeout,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	etcd := &envtest.Etcd{}
	kubeEnv.ControlPlane.Etcd = etcd
	etcd.DataDir = filepath.Join(stateDir, "etcd")
	etcd.Out, etcd.Err = etcdLog, etcdLog
	kas := kubeEnv.ControlPlane.GetAPIServer()
	kas.Out, kas.Err = kasLog, kasLog
	// Loopback only: envtest binds to 127.0.0.1 already; without this the
	// "kubernetes" Service endpoints would advertise the host's own address.
	kas.Configure().Set("advertise-address", "127.0.0.1")

	env := &gardenerenvtest.GardenerTestEnvironment{
		Environment:         kubeEnv,
		UseExistingGardener: func() *bool { b := false; return &b }(),
		GardenerAPIServer: &gardenerenvtest.GardenerAPIServer{
			// An empty --disable-admission-plugins keeps gardener-apiserver's
			// default-on admission plugin set (all validating/mutating plugins
			// such as ShootValidator, ResourceReferenceManager,
			// ExtensionValidator, ProjectMutator, DeletionConfirmation ...),
			// exactly as Gardener's own start-envtest does. See docs/testenv.md.
			Args:         []string{"--disable-admission-plugins="},
			StartTimeout: startTimeout,
			Out:          gasLog,
			Err:          gasLog,
		},
	}

	fmt.Println("kimops-plane: starting etcd, kube-apiserver and gardener-apiserver ...")
	if _, err := env.Start(); err != nil {
		// Start may have left children running; stop whatever is up.
		_ = env.Stop()
		return fmt.Errorf("starting control plane: %w (see %s)", err, logDir)
	}
	// From here on, always tear down on exit.
	defer func() {
		fmt.Println("kimops-plane: stopping control plane ...")
		if err := env.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "kimops-plane: stop: %v\n", err)
		}
	}()

	// No trailing slash: some clients append "/api/..." verbatim.
	kasURL := strings.TrimSuffix(kas.SecureServing.URL("https", "/").String(), "/")
	info := planeInfo{
		PID:                   os.Getpid(),
		ChildPIDs:             childPIDs(os.Getpid()),
		BinDir:                os.Getenv("KUBEBUILDER_ASSETS"),
		EtcdURL:               kubeEnv.ControlPlane.Etcd.URL.String(),
		KubeAPIServerURL:      kasURL,
		GardenerAPIServerPort: env.GardenerAPIServer.SecurePort,
		Kubeconfigs:           map[string]string{},
		StartedAt:             began.UTC().Format(time.RFC3339),
	}

	pkiDir := filepath.Join(stateDir, "pki")
	if err := os.MkdirAll(pkiDir, 0o700); err != nil {
		return err
	}
	for _, name := range users {
		user, err := kubeEnv.ControlPlane.AddUser(envtest.User{Name: name, Groups: []string{"system:masters"}}, nil)
		if err != nil {
			return fmt.Errorf("adding user %s: %w", name, err)
		}
		path := filepath.Join(stateDir, name+".kubeconfig")
		if err := writeKubeconfig(path, name, user.Config()); err != nil {
			return err
		}
		// Plain PEM files as well, for curl and other non-kubeconfig clients.
		cfg := user.Config()
		for file, data := range map[string][]byte{name + ".crt": cfg.CertData, name + ".key": cfg.KeyData, "ca.crt": cfg.CAData} {
			if err := os.WriteFile(filepath.Join(pkiDir, file), data, 0o600); err != nil {
				return err
			}
		}
		info.Kubeconfigs[name] = path
	}
	if err := addShootClientCA(kas.CertDir, pkiDir); err != nil {
		return fmt.Errorf("adding the Shoot client CA: %w", err)
	}
	info.StartSeconds = time.Since(began).Seconds()

	data, _ := json.MarshalIndent(info, "", "  ")
	if err := writeFileAtomic(filepath.Join(stateDir, "plane.json"), append(data, '\n')); err != nil {
		return err
	}
	// The "ready" marker is written last; up.sh waits for it.
	if err := writeFileAtomic(filepath.Join(stateDir, "ready"), []byte(time.Now().UTC().Format(time.RFC3339)+"\n")); err != nil {
		return err
	}
	fmt.Printf("kimops-plane: ready after %.1fs, kube-apiserver %s\n", info.StartSeconds, info.KubeAPIServerURL)

	<-ctx.Done()
	_ = os.Remove(filepath.Join(stateDir, "ready"))
	return nil
}

// writeKubeconfig writes a self-contained kubeconfig (embedded CA and client
// certificate) whose user and context are both named after the identity.
func writeKubeconfig(path, name string, cfg *rest.Config) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["kimops-testenv"] = &clientcmdapi.Cluster{
		Server:                   strings.TrimSuffix(cfg.Host, "/"),
		CertificateAuthorityData: cfg.CAData,
	}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: "kimops-testenv", AuthInfo: name}
	kc.CurrentContext = name
	data, err := clientcmd.Write(*kc)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, data)
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// childPIDs lists the direct children of pid (etcd and kube-apiserver), read
// from /proc, for plane.json (e.g. to add up the plane's memory). envtest
// starts them in their own process groups; should this process die without
// stopping them, down.sh finds them by their command line.
func childPIDs(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Format: "pid (comm) state ppid ..."; comm may contain spaces.
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}
