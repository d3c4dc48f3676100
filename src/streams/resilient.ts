// An effect that fails is a defect, not a reason to stop serving: the failure is reported
// and the effect subscribed again (NgRx effects do the same).
import { catchError, defer, type Observable } from 'rxjs';

export function resilient<T>(name: string, effect: () => Observable<T>, report: (message: string) => void): Observable<T> {
  const attempt = (): Observable<T> =>
    defer(effect).pipe(
      catchError((error: unknown) => {
        report(`core: the ${name} pipeline failed and restarts: ${error instanceof Error ? error.stack : String(error)}`);
        return attempt();
      }),
    );
  return attempt();
}
