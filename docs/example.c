/* Render a conversation, then parse a completion, with libharmony. */
#include <stdio.h>
#include <string.h>
#include <harmony.h>

int
main(void)
{
	const char *conv = "{\"messages\":[{\"role\":\"user\",\"content\":\"What is 2+2?\"}]}";
	const char *completion = "<|channel|>analysis<|message|>Easy.<|end|>"
	    "<|start|>assistant<|channel|>final<|message|>4<|return|>";
	hm_render_opts ro = HM_RENDER_OPTS_INIT;
	hm_conversation *c = NULL;
	hm_encoder *enc = hm_encoder_new();
	hm_parser *p = hm_parser_new("assistant", 0);
	hm_ids prompt = {0}, out = {0};
	hm_error err;
	hm_event ev;
	size_t i;

	/* 1. The prompt: a conversation in the reference's JSON, rendered
	 * as a completion prompt (ending in <|start|>assistant). */
	ro.mode = HM_RENDER_COMPLETION;
	if (!enc || !p || hm_conversation_from_json(conv, strlen(conv), &c, &err) != HM_OK ||
	    hm_render(c, &ro, &prompt, &err) != HM_OK) {
		fprintf(stderr, "render: %s\n", err.msg);
		return 1;
	}
	printf("prompt: %zu tokens\n", prompt.len);

	/* 2. What the model wrote, as ids (special-token text recognised). */
	if (hm_encode(enc, completion, strlen(completion), HM_ENC_SPECIAL, &out, NULL) != HM_OK)
		return 1;

	/* 3. Parse it: feed ids, pull events. */
	if (hm_parser_feed(p, out.v, out.len) != HM_OK)
		return 1;
	hm_parser_finish(p);
	while (hm_parser_next(p, &ev)) {
		if (ev.type == HM_EV_START)
			printf("%s [%.*s]: ", ev.role, (int)ev.channel.len, ev.channel.p);
		else if (ev.type == HM_EV_DELTA)
			printf("%.*s", (int)ev.text.len, ev.text.p);
		else if (ev.type == HM_EV_END)
			printf(" (%s)\n", hm_stop_name(ev.stop));
	}
	for (i = 0; i < 3 && i < out.len; i++)
		printf("%s%u", i ? " " : "first ids: ", out.v[i]);
	putchar('\n');

	hm_ids_free(&prompt);
	hm_ids_free(&out);
	hm_conversation_free(c);
	hm_parser_free(p);
	hm_encoder_free(enc);
	return 0;
}
