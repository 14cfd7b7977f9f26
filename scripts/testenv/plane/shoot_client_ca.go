package main

// A client CA for the Shoots' admin kubeconfigs. gardener-apiserver's `shoots/adminkubeconfig`
// signs client certificates with the CA in the Shoot's `<shoot>.ca-client` InternalSecret; the
// gardenlet simulator puts this CA there, and because kube-apiserver trusts it too (it is appended
// to the client CA bundle, which kube-apiserver reloads on change), those kubeconfigs really work
// against the local kube-apiserver — which plays every Shoot's own cluster.

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// clientCABundleFile is where controller-runtime's envtest writes the client CA it hands to
// kube-apiserver as --client-ca-file (CertAuthn.caCrtPath).
const clientCABundleFile = "client-cert-auth-ca.crt"

// addShootClientCA creates the CA, writes it to pkiDir/shoot-client-ca.{crt,key} and appends its
// certificate to kube-apiserver's client CA bundle in certDir.
func addShootClientCA(certDir, pkiDir string) error {
	// RSA and PKCS#1: the only key form gardener-apiserver reads from the ca-client secret.
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	now := time.Now()
	template := &x509.Certificate{
		SerialNumber:          big.NewInt(now.UnixNano()),
		Subject:               pkix.Name{CommonName: "kimops-testenv-shoot-client-ca"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(filepath.Join(pkiDir, "shoot-client-ca.crt"), certPEM, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(pkiDir, "shoot-client-ca.key"), keyPEM, 0o600); err != nil {
		return err
	}
	bundle, err := os.OpenFile(filepath.Join(certDir, clientCABundleFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("opening kube-apiserver's client CA bundle: %w", err)
	}
	defer bundle.Close()
	_, err = bundle.Write(certPEM)
	return err
}
