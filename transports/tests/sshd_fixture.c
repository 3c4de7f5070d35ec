/*
 * sshd_fixture: see sshd_fixture.h. Keys are made with ssh-keygen, the
 * server runs in the foreground (-D) as our child so stopping it is a kill
 * of a pid we own.
 */
#include "transports/tests/sshd_fixture.h"
#include "transports/backend.h"
#include "transports/proc.h"

#include "proto/mem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SSHD_BIN "/usr/sbin/sshd"
#define SSHD_READY_TRIES 100 /* x 50 ms */

const char *sshd_fixture_unavailable(void)
{
	if (geteuid() != 0)
		return "sshd needs root here";
	if (access(SSHD_BIN, X_OK) < 0)
		return SSHD_BIN " not installed (openssh-server)";
	return NULL;
}

static int s_keygen(const char *path, char *err, size_t errsz)
{
	proc_spec_t s;
	int st = -1, r;

	proc_spec_init(&s);
	proc_arg(&s, "ssh-keygen");
	proc_arg(&s, "-q");
	proc_arg(&s, "-t");
	proc_arg(&s, "ed25519");
	proc_arg(&s, "-N");
	proc_arg(&s, "");
	proc_arg(&s, "-f");
	proc_arg(&s, path);
	s.timeout_ms = 30000;
	r = proc_run(&s, &st, err, errsz);
	if (r == 0 && st != 0) {
		snprintf(err, errsz, "ssh-keygen exited %d", st);
		r = -EIO;
	}
	return r;
}

/* The public key's "type base64" part. */
static int s_read_pub(const char *key, char *out, size_t outsz)
{
	char *path = xasprintf("%s.pub", key);
	FILE *f = fopen(path, "r");
	char type[64], b64[512];
	int r = -EIO;

	free(path);
	if (!f)
		return -errno;
	if (fscanf(f, "%63s %511s", type, b64) == 2) {
		snprintf(out, outsz, "%s %s", type, b64);
		r = 0;
	}
	fclose(f);
	return r;
}

static int s_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) == 0 ? 0 : -EIO;
}

static int s_files(sshd_fixture_t *f, char *err, size_t errsz)
{
	char *p, pub[600], line[800];
	int r;

	snprintf(f->identity, sizeof(f->identity), "%s/client_key", f->dir);
	snprintf(f->known_hosts, sizeof(f->known_hosts), "%s/known_hosts", f->dir);
	snprintf(f->wrong_known_hosts, sizeof(f->wrong_known_hosts),
		 "%s/wrong_known_hosts", f->dir);
	p = xasprintf("%s/host_key", f->dir);
	r = s_keygen(p, err, errsz);
	if (r == 0)
		r = s_read_pub(p, pub, sizeof(pub));
	free(p);
	if (r == 0) {
		snprintf(line, sizeof(line), "[127.0.0.1]:%d %s\n", f->port, pub);
		r = s_write(f->known_hosts, line);
	}
	p = xasprintf("%s/other_host_key", f->dir);
	if (r == 0)
		r = s_keygen(p, err, errsz);
	if (r == 0)
		r = s_read_pub(p, pub, sizeof(pub));
	free(p);
	if (r == 0) {
		snprintf(line, sizeof(line), "[127.0.0.1]:%d %s\n", f->port, pub);
		r = s_write(f->wrong_known_hosts, line);
	}
	if (r == 0)
		r = s_keygen(f->identity, err, errsz);
	if (r == 0)
		r = s_read_pub(f->identity, pub, sizeof(pub));
	if (r == 0) {
		p = xasprintf("%s/authorized_keys", f->dir);
		snprintf(line, sizeof(line), "%s\n", pub);
		r = s_write(p, line);
		free(p);
	}
	if (r < 0 && !err[0])
		snprintf(err, errsz, "writing fixture files: %s", strerror(-r));
	return r;
}

static int s_config(sshd_fixture_t *f)
{
	char *path = xasprintf("%s/sshd_config", f->dir);
	char *text = xasprintf(
		"Port %d\n"
		"ListenAddress 127.0.0.1\n"
		"HostKey %s/host_key\n"
		"PidFile %s/sshd.pid\n"
		"AuthorizedKeysFile %s/authorized_keys\n"
		"StrictModes no\n"
		"UsePAM no\n"
		"PermitRootLogin prohibit-password\n"
		"PubkeyAuthentication yes\n"
		"PasswordAuthentication no\n"
		"KbdInteractiveAuthentication no\n"
		"MaxSessions 64\n"
		"MaxStartups 64\n"
		"LogLevel ERROR\n",
		f->port, f->dir, f->dir, f->dir);
	int r = s_write(path, text);

	free(path);
	free(text);
	return r;
}

static bool s_listening(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

static int s_spawn(sshd_fixture_t *f, char *err, size_t errsz)
{
	char *conf = xasprintf("%s/sshd_config", f->dir);
	char *log = xasprintf("%s/sshd.log", f->dir);
	int status;

	f->pid = fork();
	if (f->pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		setsid();
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execl(SSHD_BIN, SSHD_BIN, "-D", "-e", "-f", conf, (char *)NULL);
		_exit(127);
	}
	free(conf);
	for (int i = 0; f->pid > 0 && i < SSHD_READY_TRIES; i++) {
		if (s_listening(f->port)) {
			free(log);
			return 0;
		}
		if (waitpid(f->pid, &status, WNOHANG) == f->pid) {
			f->pid = 0;
			break;
		}
		usleep(50 * 1000);
	}
	{
		FILE *lf = fopen(log, "r");
		char line[200] = "no message";

		if (lf && !fgets(line, sizeof(line), lf))
			snprintf(line, sizeof(line), "no message");
		if (lf)
			fclose(lf);
		line[strcspn(line, "\n")] = '\0';
		snprintf(err, errsz, "sshd did not start on port %d: %s", f->port, line);
	}
	free(log);
	return -EIO;
}

int sshd_fixture_start(sshd_fixture_t *f, int port, char *err, size_t errsz)
{
	const char *tmp = "/tmp"; /* short: ControlPath must fit a sun_path */
	struct passwd *pw = getpwuid(geteuid());
	int r;

	memset(f, 0, sizeof(*f));
	err[0] = '\0';
	f->port = port;
	snprintf(f->user, sizeof(f->user), "%s", pw ? pw->pw_name : "root");
	snprintf(f->dir, sizeof(f->dir), "%s/lmsshd-XXXXXX", tmp);
	if (!mkdtemp(f->dir)) {
		snprintf(err, errsz, "mkdtemp: %s", strerror(errno));
		return -errno;
	}
	/* privilege separation needs it; a fresh container lacks it */
	mkdir("/run/sshd", 0755);
	r = s_files(f, err, errsz);
	if (r == 0)
		r = s_config(f);
	if (r == 0)
		r = s_spawn(f, err, errsz);
	if (r < 0 && !err[0])
		snprintf(err, errsz, "sshd fixture: %s", strerror(-r));
	return r;
}

void sshd_fixture_stop(sshd_fixture_t *f)
{
	if (f->pid > 0) {
		kill(f->pid, SIGTERM);
		waitpid(f->pid, NULL, 0);
		f->pid = 0;
	}
	if (f->dir[0]) {
		transport_rmtree(f->dir);
		f->dir[0] = '\0';
	}
}
