// The terminal's input as Ink's parser splits it (one escape sequence, or a run of plain
// characters), without Ink's useInput: useInput throws on sequences it has no name for (a
// bracketed paste's start marker is one, and the throw ends the process), reports Backspace and
// Delete alike, and hands a run of several keys over as one string of text.
import { useStdin } from 'ink';
import { useEffect, useRef } from 'react';

export function useRawInput(handler: (event: string) => void, active = true): void {
  const { internal_eventEmitter: events, setRawMode } = useStdin();
  const current = useRef(handler);
  current.current = handler;
  useEffect(() => {
    if (!active) return;
    setRawMode(true);
    const onInput = (event: string) => current.current(event);
    events.on('input', onInput);
    return () => {
      events.off('input', onInput);
      setRawMode(false);
    };
  }, [active, events, setRawMode]);
}
