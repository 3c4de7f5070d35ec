/*
 * Unit tests for key files and key conversions: file modes, refusing to
 * overwrite, refusing secrets others can read, format checks, hex ids and
 * the CURVE form (checked against libzmq's own derivation).
 */
#include "proto/keys.h"
#include "proto/tests/check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>
#include <zmq.h>

int check_failures;

static char s_dir[] = "/tmp/labmesh-keys-XXXXXX";

static char *s_path(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", s_dir, name);
	return buf[i];
}

static void s_write(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static mode_t s_mode(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_mode & 07777 : 0;
}

static void test_save_load(void)
{
	key_pair_t kp, back;
	char err[512];
	uint8_t pk[32];
	const char *p = s_path("node.key");

	CHECK_ERR(key_generate(&kp), 0);
	umask(0);
	CHECK_ERR(key_save(&kp, p, false, err, sizeof(err)), 0);
	umask(022);
	CHECK(s_mode(p) == 0600);
	CHECK(s_mode(s_path("node.key.pub")) == 0644);
	CHECK_ERR(key_load(p, &back, err, sizeof(err)), 0);
	CHECK(memcmp(&kp, &back, sizeof(kp)) == 0);
	CHECK_ERR(key_load_public(s_path("node.key.pub"), pk, err, sizeof(err)), 0);
	CHECK(memcmp(pk, kp.pk, 32) == 0);
	/* no silent overwrite */
	key_pair_t other;
	CHECK_ERR(key_generate(&other), 0);
	CHECK_ERR(key_save(&other, p, false, err, sizeof(err)), -EEXIST);
	CHECK(strstr(err, "refusing to overwrite") != NULL);
	CHECK_ERR(key_load(p, &back, err, sizeof(err)), 0);
	CHECK(memcmp(back.pk, kp.pk, 32) == 0);
	CHECK_ERR(key_save(&other, p, true, err, sizeof(err)), 0);
	CHECK(s_mode(p) == 0600);
	CHECK_ERR(key_load(p, &back, err, sizeof(err)), 0);
	CHECK(memcmp(back.pk, other.pk, 32) == 0);
	key_wipe(&back);
	uint8_t zero[sizeof(back)] = {0};
	CHECK(memcmp(&back, zero, sizeof(back)) == 0);
}

static void test_permissions(void)
{
	key_pair_t kp;
	char err[512], want[600];
	const char *p = s_path("open.key");

	CHECK_ERR(key_generate(&kp), 0);
	CHECK_ERR(key_save(&kp, p, false, err, sizeof(err)), 0);
	static const mode_t bad[] = {0644, 0640, 0604, 0660, 0602, 0620};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		chmod(p, bad[i]);
		memset(&kp, 0xaa, sizeof(kp));
		CHECK_ERR(key_load(p, &kp, err, sizeof(err)), PROTO_E_KEYPERM);
		CHECK(kp.sk[0] == 0xaa); /* nothing written */
	}
	chmod(p, 0644);
	key_load(p, &kp, err, sizeof(err));
	snprintf(want, sizeof(want),
		 "%s: permissions 0644 are too open; run chmod 600 %s", p, p);
	CHECK(strcmp(err, want) == 0);
	CHECK(strchr(err, '\n') == NULL);
	chmod(p, 0400);
	CHECK_ERR(key_load(p, &kp, err, sizeof(err)), 0);
	/* a symlink is not followed */
	CHECK(symlink(p, s_path("link.key")) == 0);
	CHECK(key_load(s_path("link.key"), &kp, err, sizeof(err)) < 0);
	CHECK_ERR(key_load(s_path("missing.key"), &kp, err, sizeof(err)), -ENOENT);
}

static void test_format(void)
{
	key_pair_t kp, seeded;
	char err[512], text[400], hex[129];
	uint8_t seed[32] = {7};
	const char *p = s_path("fmt.key");

	CHECK_ERR(key_from_seed(seed, &seeded), 0);
	for (int i = 0; i < 64; i++)
		snprintf(hex + 2 * i, 3, "%02x", seeded.sk[i]);
	snprintf(text, sizeof(text), "%s\n%s\n", KEY_SECRET_MAGIC, hex);
	s_write(p, text, 0600);
	CHECK_ERR(key_load(p, &kp, err, sizeof(err)), 0);
	CHECK(memcmp(kp.pk, seeded.pk, 32) == 0);
	snprintf(text, sizeof(text), "%s\n%s", KEY_SECRET_MAGIC, hex);
	s_write(p, text, 0600);
	CHECK_ERR(key_load(p, &kp, err, sizeof(err)), 0); /* no final newline */
	snprintf(text, sizeof(text), "%s\n%s\nextra\n", KEY_SECRET_MAGIC, hex);
	s_write(p, text, 0600);
	CHECK_ERR(key_load(p, &kp, err, sizeof(err)), PROTO_E_KEYFORMAT);
	snprintf(text, sizeof(text), "labmesh-ed25519-secret-v2\n%s\n", hex);
	s_write(p, text, 0600);
	CHECK_ERR(key_load(p, &kp, err, sizeof(err)), PROTO_E_KEYFORMAT);
	hex[127] = 'g';
	snprintf(text, sizeof(text), "%s\n%s\n", KEY_SECRET_MAGIC, hex);
	s_write(p, text, 0600);
	CHECK_ERR(key_load(p, &kp, err, sizeof(err)), PROTO_E_KEYFORMAT);
	/* public half that does not belong to the seed */
	hex[127] = hex[126] == '0' ? '1' : '0';
	hex[126] = '0';
	snprintf(text, sizeof(text), "%s\n%s\n", KEY_SECRET_MAGIC, hex);
	s_write(p, text, 0600);
	CHECK_ERR(key_load(p, &kp, err, sizeof(err)), PROTO_E_KEYFORMAT);
	s_write(p, "", 0600);
	CHECK_ERR(key_load(p, &kp, err, sizeof(err)), PROTO_E_KEYFORMAT);
	/* a public file where a secret is expected */
	CHECK_ERR(key_save(&seeded, s_path("pub.key"), false, err, sizeof(err)), 0);
	chmod(s_path("pub.key.pub"), 0600);
	CHECK_ERR(key_load(s_path("pub.key.pub"), &kp, err, sizeof(err)),
		  PROTO_E_KEYFORMAT);
}

static void test_ids(void)
{
	key_pair_t kp;
	uint8_t seed[32] = {0}, back[32];
	char hex[KEY_HEX_LEN + 1], shorthex[KEY_SHORT_LEN + 1];

	CHECK_ERR(key_from_seed(seed, &kp), 0);
	key_hex(kp.pk, hex);
	key_short(kp.pk, shorthex);
	CHECK(strlen(hex) == 64 && strlen(shorthex) == 12);
	CHECK(strncmp(hex, shorthex, 12) == 0);
	CHECK_ERR(key_parse_hex(hex, back), 0);
	CHECK(memcmp(back, kp.pk, 32) == 0);
	CHECK(key_parse_hex(shorthex, back) < 0);
	hex[5] = 'x';
	CHECK(key_parse_hex(hex, back) < 0);
	/* RFC 8032 section 7.1, test 1: the seed gives the known key */
	uint8_t rfc_seed[32];
	CHECK(sodium_hex2bin(rfc_seed, 32,
			     "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
			     64, NULL, NULL, NULL) == 0);
	key_pair_t rfc;
	CHECK_ERR(key_from_seed(rfc_seed, &rfc), 0);
	key_hex(rfc.pk, hex);
	CHECK(strcmp(hex, "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a") == 0);
	/* the seed makes the key: deterministic */
	key_pair_t again;
	CHECK_ERR(key_from_seed(seed, &again), 0);
	CHECK(memcmp(&again, &kp, sizeof(kp)) == 0);
}

static void test_curve(void)
{
	key_pair_t kp;
	char pub[KEY_Z85_LEN + 1], sec[KEY_Z85_LEN + 1];
	char derived[KEY_Z85_LEN + 1], pub2[KEY_Z85_LEN + 1];

	CHECK_ERR(key_generate(&kp), 0);
	CHECK_ERR(key_curve(&kp, pub, sec), 0);
	CHECK(strlen(pub) == 40 && strlen(sec) == 40);
	/* libzmq derives the same public key from our secret */
	CHECK(zmq_curve_public(derived, sec) == 0);
	CHECK(strcmp(derived, pub) == 0);
	CHECK_ERR(key_curve_public(kp.pk, pub2), 0);
	CHECK(strcmp(pub2, pub) == 0);
	uint8_t raw[32], dec[32];
	CHECK_ERR(key_curve_public_raw(kp.pk, raw), 0);
	CHECK(zmq_z85_decode(dec, pub) != NULL && memcmp(dec, raw, 32) == 0);
	sodium_memzero(sec, sizeof(sec));
}

int main(void)
{
	if (!mkdtemp(s_dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_save_load();
	test_permissions();
	test_format();
	test_ids();
	test_curve();
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s_dir);
	if (system(cmd) != 0)
		check_failures++;
	return CHECK_DONE();
}
