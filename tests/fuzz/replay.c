/*
 * replay.c - runs a fuzz target over files, without libFuzzer: the
 * regression inputs of `make check` (fixtures/fuzz/NAME/, NAME compiled
 * in as FUZZ_NAME) or the files and directories given.  One test per file,
 * run in a child process: a file that makes the target crash, fail a check
 * or (under a sanitizer) leak is named and counted as failed.
 * Prints "test_replay_NAME: N passed, N failed"; exits 1 when one failed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t passed, failed;

static int
run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL, *t;
	size_t len = 0, cap = 0, n;
	pid_t pid;
	int st;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			if (!(t = realloc(buf, cap))) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = t;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		/* A copy of exactly len bytes, so that ASan sees reads past the end. */
		if (!(t = malloc(len ? len : 1)))
			_exit(70);
		if (len)
			memcpy(t, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(t, len);
		free(t);
		exit(0);
	}
	free(buf);
	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		fprintf(stderr, "replay: %s: cannot run: %s\n", path, strerror(errno));
		failed++;
		return 0;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		passed++;
	} else {
		if (WIFSIGNALED(st))
			fprintf(stderr, "replay %s: %s: killed by signal %d\n", FUZZ_NAME, path, WTERMSIG(st));
		else
			fprintf(stderr, "replay %s: %s: exit status %d\n", FUZZ_NAME, path, WEXITSTATUS(st));
		failed++;
	}
	return 0;
}

static int
compare(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
run_path(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char **names = NULL, **t;
	size_t n = 0, i;
	int rc = 0;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	if (!(d = opendir(path)))
		return -1;
	while ((e = readdir(d))) {
		char *p;

		if (e->d_name[0] == '.')
			continue;
		if (!(t = realloc(names, (n + 1) * sizeof *names)) ||
		    !(p = malloc(strlen(path) + strlen(e->d_name) + 2))) {
			rc = -1;
			if (t)
				names = t;
			break;
		}
		names = t;
		sprintf(p, "%s/%s", path, e->d_name);
		names[n++] = p;
	}
	closedir(d);
	qsort(names, n, sizeof *names, compare);
	for (i = 0; i < n; i++) {
		if (rc == 0 && run_file(names[i]) != 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char **argv)
{
	int i, rc = 0;

	if (argc < 2) {
		struct stat st;

		/* No regression input for this target yet: nothing to run. */
		if (stat("fixtures/fuzz/" FUZZ_NAME, &st) == 0)
			rc = run_path("fixtures/fuzz/" FUZZ_NAME);
	} else {
		for (i = 1; i < argc; i++)
			if (run_path(argv[i]) != 0)
				rc = 1;
	}
	if (rc)
		failed++;
	printf("test_replay_%s: %zu passed, %zu failed\n", FUZZ_NAME, passed, failed);
	return failed ? 1 : 0;
}
