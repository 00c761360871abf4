// The run's screen. The agent runs outside React (run-with-tui.tsx); this component only shows the
// events it is given and passes the engineer's answer back.
import { Box, Static, useInput } from 'ink';
import { useSyncExternalStore } from 'react';
import { ApprovalPrompt } from './approval-prompt.js';
import { Final, Footer, Header, Running, TurnBlock } from './components.js';
import { QuestionInput } from './question.js';
import type { ViewStore } from './store.js';

export function App({ store }: { store: ViewStore }) {
  const view = useSyncExternalStore(store.subscribe, store.get);
  const approval = useSyncExternalStore(store.subscribe, store.pendingApproval);
  useInput(
    (input, key) => {
      // Raw mode turns Ctrl-C into input; hand it to the process's SIGINT handler, which kills the
      // running container, marks the ledger and exits with a summary.
      if (key.ctrl && input === 'c') process.kill(process.pid, 'SIGINT');
    },
    { isActive: store.interactive },
  );
  return (
    <Box flexDirection="column">
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
            <TurnBlock key={item.key} turn={(item as { turn: (typeof view.done)[number] }).turn} />
          )
        }
      </Static>
      {view.current ? <TurnBlock turn={view.current} /> : null}
      {view.running ? <Running tool={view.running.tool} since={view.running.since} /> : null}
      {approval && store.interactive ? (
        <ApprovalPrompt key={approval.callId} request={approval} onDecide={store.decideApproval} />
      ) : null}
      {view.question !== null && store.interactive ? (
        <QuestionInput question={view.question} onAnswer={store.answer} />
      ) : null}
      {view.result ? <Final result={view.result} /> : <Footer view={view} />}
    </Box>
  );
}
