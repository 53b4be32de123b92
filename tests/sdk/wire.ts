// wire.ts - the openai SDK types that harmony-parse's output is checked
// against, adjusted only where the wire differs from the client's view:
//  - Response.output_text is computed by the SDK from `output`; servers do
//    not send it, so it is optional here, wherever a Response appears.
//  - reasoning_content on a Chat message and a chunk's delta is the
//    extension harmony-parse documents (as vLLM and others send it).
// Nothing else is loosened: unknown fields, missing fields and wrong
// literals are errors.
import type { Response } from 'openai/resources/responses/responses';

declare module 'openai/resources/chat/completions/completions' {
	interface ChatCompletionMessage {
		reasoning_content?: string | null;
	}
	namespace ChatCompletionChunk {
		namespace Choice {
			interface Delta {
				reasoning_content?: string | null;
			}
		}
	}
}

export type Wire<T> =
	T extends Response ? WireObject<Omit<T, 'output_text'>> & { output_text?: string } :
	T extends Array<infer U> ? Array<Wire<U>> :
	T extends object ? WireObject<T> :
	T;

type WireObject<T> = { [K in keyof T]: Wire<T[K]> };
