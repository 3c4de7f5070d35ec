/*
 * Unit tests for the bounded YAML tree: structure and positions, refused
 * features (aliases, tags, duplicate keys, several documents), the limits,
 * the typed readers and their one-line errors.
 */
#include "proto/tests/check.h"
#include "labs/yaml.h"
#include "proto/buf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int check_failures;

#define CHECK_STR(a, b)                                                        \
	do {                                                                   \
		const char *a_ = (a), *b_ = (b);                               \
		if (!a_ || strcmp(a_, b_) != 0) {                              \
			fprintf(stderr, "%s:%d: got '%s', want '%s'\n",        \
				__FILE__, __LINE__, a_ ? a_ : "(null)", b_);   \
			check_failures++;                                          \
		}                                                              \
	} while (0)

static yaml_tree_t *s_parse(const char *text)
{
	yaml_tree_t *t = NULL;
	char *err = NULL;

	if (yaml_tree_parse("t.yaml", text, strlen(text), NULL, &t, &err) < 0) {
		fprintf(stderr, "unexpected parse error: %s\n", err);
		free(err);
		check_failures++;
		return NULL;
	}
	return t;
}

/* Parse text expecting failure rc and the error message want. */
static void s_parse_err(const char *text, size_t len,
			const yaml_limits_t *lim, int rc, const char *want)
{
	yaml_tree_t *t = NULL;
	char *err = NULL;
	int r = yaml_tree_parse("t.yaml", text, len, lim, &t, &err);

	CHECK(r == rc);
	CHECK(t == NULL);
	CHECK_STR(err, want);
	free(err);
	yaml_tree_destroy(&t);
}

static void test_structure(void)
{
	yaml_tree_t *t = s_parse("a: 1\n"
				 "b:\n"
				 "  - x\n"
				 "  - {c: \"q\", d: [1, 2]}\n"
				 "e:\n");
	yaml_val_t *root, *b, *m;

	if (!t)
		return;
	root = yaml_tree_root(t);
	CHECK(yaml_kind(root) == YAML_KIND_MAP);
	CHECK(yaml_len(root) == 3);
	CHECK_STR(yaml_str(yaml_pair_key(root, 1)), "b");
	b = yaml_map_peek(root, "b");
	CHECK(yaml_kind(b) == YAML_KIND_SEQ && yaml_len(b) == 2);
	CHECK(yaml_line(yaml_item(b, 0)) == 3 && yaml_column(yaml_item(b, 0)) == 5);
	m = yaml_item(b, 1);
	CHECK(yaml_line(m) == 4 && yaml_kind(m) == YAML_KIND_MAP);
	CHECK(!yaml_is_plain(yaml_map_peek(m, "c")));
	CHECK(yaml_is_plain(yaml_map_peek(root, "a")));
	CHECK(yaml_is_null(yaml_map_peek(root, "e")));
	char *p = yaml_path(yaml_item(yaml_map_peek(m, "d"), 1));
	CHECK_STR(p, "b[1].d[1]");
	free(p);
	CHECK(yaml_tree_nodes(t) == 15);
	yaml_tree_destroy(&t);
	CHECK(t == NULL);
	yaml_tree_destroy(&t);

	t = s_parse("");
	CHECK(t && yaml_tree_root(t) == NULL);
	yaml_tree_destroy(&t);
	t = s_parse("# only a comment\n");
	CHECK(t && yaml_tree_root(t) == NULL);
	yaml_tree_destroy(&t);
}

static void test_refused(void)
{
	const char *s;

	s = "a: &x 1\nb: *x\n";
	s_parse_err(s, strlen(s), NULL, -EINVAL,
		    "t.yaml:1: anchors and aliases are not allowed");
	s = "a: [1]\nb: *x\n";
	s_parse_err(s, strlen(s), NULL, -EINVAL,
		    "t.yaml:2: anchors and aliases are not allowed");
	s = "a: !!str 1\n";
	s_parse_err(s, strlen(s), NULL, -EINVAL, "t.yaml:1: tags are not allowed");
	s = "a: 1\nb: 2\na: 3\n";
	s_parse_err(s, strlen(s), NULL, -EINVAL, "t.yaml:3: duplicate key 'a'");
	s = "x:\n  - {k: 1, k: 2}\n";
	s_parse_err(s, strlen(s), NULL, -EINVAL, "t.yaml:2: duplicate key 'k'");
	s = "a: 1\n---\nb: 2\n";
	s_parse_err(s, strlen(s), NULL, -EINVAL,
		    "t.yaml:2: only one YAML document is allowed");
	s = "? [a]\n: 1\n";
	s_parse_err(s, strlen(s), NULL, -EINVAL,
		    "t.yaml:1: mapping keys must be plain strings");
	s = "a: \"x\\0y\"\n";
	s_parse_err(s, strlen(s), NULL, -EINVAL,
		    "t.yaml:1: NUL character in a value");
	s = "a: 1\n b: 2\n";
	s_parse_err(s, strlen(s), NULL, -EINVAL,
		    "t.yaml:2: a ':' where a value was expected (quote a value"
		    " that holds ': ', or check the indentation) (YAML: mapping"
		    " values are not allowed in this context)");
	s = "a: [1, 2\nb: 3\n";
	yaml_tree_t *t = NULL;
	char *err = NULL;
	CHECK(yaml_tree_parse("t.yaml", s, strlen(s), NULL, &t, &err) == -EINVAL);
	CHECK(err && strncmp(err, "t.yaml:", 7) == 0 && !strchr(err, '\n'));
	free(err);
	/* invalid UTF-8 is a reader error, with its line */
	s = "a: 1\nb: \xff\n";
	err = NULL;
	CHECK(yaml_tree_parse("t.yaml", s, strlen(s), NULL, &t, &err) == -EINVAL);
	CHECK(err && strncmp(err, "t.yaml:2: ", 10) == 0);
	free(err);
}

static void test_limits(void)
{
	yaml_limits_t lim = { 0 };
	buf_t b;
	char *big;

	/* billion laughs shape, refused at the first anchor */
	const char *lol = "a: &a [x, x, x, x, x, x, x, x, x]\n"
			  "b: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
			  "c: [*b, *b, *b, *b, *b, *b, *b, *b]\n";
	s_parse_err(lol, strlen(lol), NULL, -EINVAL,
		    "t.yaml:1: anchors and aliases are not allowed");

	buf_init(&b, 0);
	for (int i = 0; i < 40; i++)
		buf_putc(&b, '[');
	for (int i = 0; i < 40; i++)
		buf_putc(&b, ']');
	s_parse_err(buf_str(&b), b.len, NULL, -E2BIG,
		    "t.yaml:1: nested too deep (more than 32 levels)");
	buf_reset(&b);
	for (int i = 0; i < 40; i++)
		buf_printf(&b, "%*sk:\n", i * 2, "");
	s_parse_err(buf_str(&b), b.len, NULL, -E2BIG,
		    "t.yaml:33: nested too deep (more than 32 levels)");
	/* exactly at the depth limit is fine */
	buf_reset(&b);
	for (int i = 0; i < 32; i++)
		buf_putc(&b, '[');
	for (int i = 0; i < 32; i++)
		buf_putc(&b, ']');
	yaml_tree_t *t = s_parse(buf_str(&b));
	CHECK(t != NULL);
	yaml_tree_destroy(&t);

	buf_reset(&b);
	buf_puts(&b, "[");
	for (int i = 0; i < 200; i++)
		buf_puts(&b, "1,");
	buf_puts(&b, "1]");
	lim.max_nodes = 100;
	s_parse_err(buf_str(&b), b.len, &lim, -E2BIG,
		    "t.yaml:1: too many nodes (more than 100)");
	lim.max_nodes = 0;

	lim.max_scalar = 8;
	s_parse_err("a: 123456789\n", 13, &lim, -E2BIG,
		    "t.yaml:1: value too long (9 bytes, at most 8)");
	lim.max_scalar = 0;

	big = calloc(1, YAML_MAX_BYTES + 2);
	memset(big, ' ', YAML_MAX_BYTES + 1);
	s_parse_err(big, YAML_MAX_BYTES + 1, NULL, -EFBIG,
		    "t.yaml:1: file too large (1048577 bytes, at most 1048576)");

	/* the same from a file: refused without reading it all */
	char path[] = "/tmp/test-yaml-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK(write(fd, big, YAML_MAX_BYTES + 1) == YAML_MAX_BYTES + 1);
	close(fd);
	char *err = NULL;
	CHECK(yaml_tree_load(path, NULL, &t, &err) == -EFBIG);
	CHECK(err && strstr(err, ":1: file too large"));
	free(err);
	unlink(path);
	free(big);

	err = NULL;
	CHECK(yaml_tree_load("/nonexistent/x.yaml", NULL, &t, &err) == -ENOENT);
	CHECK_STR(err, "/nonexistent/x.yaml: No such file or directory");
	free(err);

	/* many keys in one mapping stay fast (hashed duplicate check) */
	buf_reset(&b);
	for (int i = 0; i < 40000; i++)
		buf_printf(&b, "k%d: %d\n", i, i);
	t = s_parse(buf_str(&b));
	CHECK(t && yaml_len(yaml_tree_root(t)) == 40000);
	yaml_tree_destroy(&t);
	buf_free(&b);
}

static void test_reads(void)
{
	yaml_tree_t *t = s_parse("port: 22\n"
				 "big: 99999999999999999999\n"
				 "neg: -5\n"
				 "bad: 12abc\n"
				 "hex: 0x10\n"
				 "quoted: \"80\"\n"
				 "sp: ' 1'\n"
				 "on: yes\n"
				 "off: Off\n"
				 "maybe: perhaps\n"
				 "f: -2.5e1\n"
				 "nan: .nan\n"
				 "inf: 1e999\n"
				 "s: hello\n"
				 "list: [a, b, c]\n"
				 "nested: [a, [b]]\n"
				 "type: telnet\n"
				 "empty:\n"
				 "qnull: \"null\"\n");
	yaml_val_t *r;
	int i = -1;
	long long ll;
	bool b;
	double d;
	char *s = NULL, **l = NULL;
	size_t n;

	if (!t)
		return;
	r = yaml_tree_root(t);
	CHECK(yaml_get_int(r, "port", YAML_REQUIRED, 1, 65535, &i) == 1 && i == 22);
	CHECK(yaml_get_int(r, "absent", YAML_OPTIONAL, 1, 65535, &i) == 0 && i == 22);
	CHECK(yaml_get_int(r, "empty", YAML_OPTIONAL, 1, 65535, &i) == 0);
	CHECK(yaml_get_int(r, "quoted", YAML_OPTIONAL, 1, 65535, &i) == 1 && i == 80);
	CHECK(yaml_get_ll(r, "neg", YAML_OPTIONAL, -10, 10, &ll) == 1 && ll == -5);
	CHECK(yaml_get_bool(r, "on", YAML_OPTIONAL, &b) == 1 && b);
	CHECK(yaml_get_bool(r, "off", YAML_OPTIONAL, &b) == 1 && !b);
	CHECK(yaml_get_double(r, "f", YAML_OPTIONAL, &d) == 1 && d == -25.0);
	CHECK(yaml_get_str(r, "s", YAML_OPTIONAL, 5, &s) == 1);
	CHECK_STR(s, "hello");
	free(s);
	CHECK(yaml_get_strlist(r, "list", YAML_OPTIONAL, 3, 1, &l, &n) == 1 && n == 3);
	CHECK_STR(l[2], "c");
	yaml_strlist_free(&l, n);
	CHECK(l == NULL);
	CHECK(yaml_get_str(r, "qnull", YAML_REQUIRED, 0, &s) == 1);
	CHECK_STR(s, "null");
	free(s);
	CHECK(yaml_tree_error(t) == NULL);

	/* each failing read records the first error only */
	struct {
		int rc;
		const char *want;
	} cases[] = {
		{ yaml_get_int(r, "big", 0, 0, 100, &i),
		  "t.yaml:2: big: 99999999999999999999 is out of range (0 to 100)" },
		{ yaml_get_int(r, "bad", 0, 0, 100, &i),
		  "t.yaml:4: bad: '12abc' is not an integer" },
		{ yaml_get_int(r, "hex", 0, 0, 100, &i),
		  "t.yaml:5: hex: '0x10' is not an integer" },
		{ yaml_get_int(r, "sp", 0, 0, 100, &i),
		  "t.yaml:7: sp: ' 1' is not an integer" },
		{ yaml_get_int(r, "neg", 0, 0, 100, &i),
		  "t.yaml:3: neg: -5 is out of range (0 to 100)" },
		{ yaml_get_bool(r, "maybe", 0, &b),
		  "t.yaml:10: maybe: 'perhaps' is not a boolean (expected true or false)" },
		{ yaml_get_double(r, "nan", 0, &d),
		  "t.yaml:12: nan: '.nan' is not a number" },
		{ yaml_get_double(r, "inf", 0, &d),
		  "t.yaml:13: inf: 1e999 is out of range" },
		{ yaml_get_str(r, "s", 0, 4, &s),
		  "t.yaml:14: s: too long (5 bytes, at most 4)" },
		{ yaml_get_str(r, "list", 0, 0, &s),
		  "t.yaml:15: list: expected a single value, not a list" },
		{ yaml_get_strlist(r, "list", 0, 2, 0, &l, &n),
		  "t.yaml:15: list: too many items (3, at most 2)" },
		{ yaml_get_strlist(r, "nested", 0, 0, 0, &l, &n),
		  "t.yaml:16: nested[1]: expected a single value, not a list" },
		{ yaml_get_enum(r, "type", 0, "transport",
				(const char *const[]){ "local", "ssh", NULL }, &i),
		  "t.yaml:17: type: unknown transport 'telnet' (expected local, ssh)" },
		{ yaml_get_str(r, "empty", YAML_REQUIRED, 0, &s),
		  "t.yaml:18: empty: required field is missing" },
		{ yaml_get_str(r, "host", YAML_REQUIRED, 0, &s),
		  "t.yaml:1: host: required field is missing" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		CHECK(cases[k].rc == -EINVAL);
	CHECK_STR(yaml_tree_error(t), cases[0].want);
	yaml_tree_destroy(&t);

	/* now one at a time, each on a fresh tree */
	for (size_t k = 1; k < sizeof(cases) / sizeof(cases[0]); k++) {
		yaml_tree_t *u = s_parse("port: 22\n"
					 "big: 99999999999999999999\n"
					 "neg: -5\n"
					 "bad: 12abc\n"
					 "hex: 0x10\n"
					 "quoted: \"80\"\n"
					 "sp: ' 1'\n"
					 "on: yes\n"
					 "off: Off\n"
					 "maybe: perhaps\n"
					 "f: -2.5e1\n"
					 "nan: .nan\n"
					 "inf: 1e999\n"
					 "s: hello\n"
					 "list: [a, b, c]\n"
					 "nested: [a, [b]]\n"
					 "type: telnet\n"
					 "empty:\n"
					 "qnull: \"null\"\n");
		yaml_val_t *ur = yaml_tree_root(u);

		switch (k) {
		case 1: yaml_get_int(ur, "bad", 0, 0, 100, &i); break;
		case 2: yaml_get_int(ur, "hex", 0, 0, 100, &i); break;
		case 3: yaml_get_int(ur, "sp", 0, 0, 100, &i); break;
		case 4: yaml_get_int(ur, "neg", 0, 0, 100, &i); break;
		case 5: yaml_get_bool(ur, "maybe", 0, &b); break;
		case 6: yaml_get_double(ur, "nan", 0, &d); break;
		case 7: yaml_get_double(ur, "inf", 0, &d); break;
		case 8: yaml_get_str(ur, "s", 0, 4, &s); break;
		case 9: yaml_get_str(ur, "list", 0, 0, &s); break;
		case 10: yaml_get_strlist(ur, "list", 0, 2, 0, &l, &n); break;
		case 11: yaml_get_strlist(ur, "nested", 0, 0, 0, &l, &n); break;
		case 12:
			yaml_get_enum(ur, "type", 0, "transport",
				      (const char *const[]){ "local", "ssh", NULL },
				      &i);
			break;
		case 13: yaml_get_str(ur, "empty", YAML_REQUIRED, 0, &s); break;
		case 14: yaml_get_str(ur, "host", YAML_REQUIRED, 0, &s); break;
		}
		CHECK_STR(yaml_tree_error(u), cases[k].want);
		char *e = yaml_tree_take_error(u);
		CHECK(e && yaml_tree_error(u) == NULL);
		free(e);
		yaml_tree_destroy(&u);
	}
}

static void test_unknown(void)
{
	yaml_tree_t *t = s_parse("boards:\n"
				 "  - name: a\n"
				 "  - name: b\n"
				 "  - name: c\n"
				 "    transport:\n"
				 "      type: serial\n"
				 "      bauds: 9600\n");
	yaml_val_t *boards = NULL, *tr = NULL;
	char *s = NULL;

	if (!t)
		return;
	CHECK(yaml_get_seq(yaml_tree_root(t), "boards", YAML_REQUIRED, &boards) == 1);
	CHECK(yaml_check_unknown(yaml_tree_root(t)) == 0);
	for (size_t i = 0; i < yaml_len(boards); i++) {
		yaml_val_t *bd = yaml_item(boards, i);

		CHECK(yaml_get_str(bd, "name", YAML_REQUIRED, 64, &s) == 1);
		free(s);
		yaml_get_map(bd, "transport", YAML_OPTIONAL, &tr);
		CHECK(yaml_check_unknown(bd) == 0);
	}
	CHECK(tr && yaml_get_str(tr, "type", YAML_REQUIRED, 0, &s) == 1);
	free(s);
	CHECK(yaml_tree_error(t) == NULL);
	CHECK(yaml_check_unknown(tr) == -EINVAL);
	CHECK_STR(yaml_tree_error(t),
		  "t.yaml:7: boards[2].transport.bauds: unknown field");
	/* missing field inside a nested mapping names the field path */
	char *e = yaml_tree_take_error(t);
	free(e);
	CHECK(yaml_fail_field(tr, "host", "required for ssh") == -EINVAL);
	CHECK_STR(yaml_tree_error(t),
		  "t.yaml:6: boards[2].transport.host: required for ssh");
	e = yaml_tree_take_error(t);
	free(e);
	/* a mapping where a list is wanted */
	CHECK(yaml_get_seq(tr, "type", 0, &boards) == -EINVAL);
	CHECK_STR(yaml_tree_error(t),
		  "t.yaml:6: boards[2].transport.type: expected a list, not a single value");
	e = yaml_tree_take_error(t);
	free(e);
	/* control characters never reach the one-line message */
	yaml_fail(tr, "bad value '%s'", "a\nb\x1b");
	CHECK_STR(yaml_tree_error(t), "t.yaml:6: boards[2].transport: bad value 'a?b?'");
	yaml_tree_destroy(&t);
}

int main(void)
{
	test_structure();
	test_refused();
	test_limits();
	test_reads();
	test_unknown();
	if (check_failures) {
		fprintf(stderr, "%d checks failed\n", check_failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
