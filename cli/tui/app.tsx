// The run's screen. The agent runs outside React (run-with-tui.tsx); this component only shows the
// events it is given and passes the engineer's answer back.
import { Box, Static } from 'ink';
import { useSyncExternalStore } from 'react';
import { ApprovalPrompt } from './approval-prompt.js';
import { Final, Footer, Header, Interrupted, Running, SetupLine, Thinking, TurnBlock } from './components.js';
import { QuestionInput } from './question.js';
import { useRawInput } from './raw-input.js';
import type { ViewStore } from './store.js';

type View = ReturnType<ViewStore['get']>;

export function App({ store }: { store: ViewStore }) {
  const view = useSyncExternalStore(store.subscribe, store.get);
  const approval = useSyncExternalStore(store.subscribe, store.pendingApproval);
  useRawInput((event) => {
    // Raw mode turns Ctrl-C into input; hand it to the process's SIGINT handler, which kills the
    // running container, marks the ledger and exits with a summary.
    if (event === '\u0003') process.kill(process.pid, 'SIGINT');
  }, store.interactive);
  const live = !view.result && !view.interrupted;
  // A box waits for the engineer: nothing runs meanwhile (the edit's call is open, but it waits for
  // the decision), so no spinner or timer says otherwise; the footer says whose turn it is.
  const waiting = live && store.interactive && (approval !== null || view.question !== null);
  return (
    <Box flexDirection="column">
      <History view={view} />
      {live && !view.init && view.setup ? <SetupLine setup={view.setup} /> : null}
      {view.current ? <TurnBlock turn={view.current} /> : null}
      {live && view.thinking && view.init ? (
        <Thinking model={view.init.model} since={view.thinking.since} />
      ) : null}
      {live && approval && store.interactive ? (
        <ApprovalPrompt
          key={approval.callId}
          request={approval}
          onDecide={store.decideApproval}
          refusal={store.refusal}
          onRefusal={(reason) => (store.refusal = reason)}
        />
      ) : null}
      {live && view.running && !waiting ? (
        <Running tool={view.running.tool} since={view.running.since} />
      ) : null}
      {live && view.question !== null && store.interactive ? (
        <QuestionInput
          question={view.question}
          draft={store.draft}
          onDraft={(d) => (store.draft = d)}
          onAnswer={store.answer}
        />
      ) : null}
      {view.result ? (
        <Final result={view.result} lastTest={view.lastTest} />
      ) : view.interrupted ? (
        <Interrupted view={view} />
      ) : (
        <Footer view={view} waiting={waiting} />
      )}
    </Box>
  );
}

/** The header and every finished turn: written once above the live part, never redrawn. */
function History({ view }: { view: View }) {
  return (
    <Static
      items={[
        ...(view.init ? [{ key: 'header' }] : []),
        ...view.done.map((t) => ({ key: `t${t.turn}`, turn: t })),
      ]}
    >
      {(item) =>
        item.key === 'header' ? (
          <Header key="header" view={view} />
        ) : (
          <TurnBlock key={item.key} turn={(item as { turn: View['done'][number] }).turn} />
        )
      }
    </Static>
  );
}
