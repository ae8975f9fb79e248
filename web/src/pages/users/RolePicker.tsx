import { useId } from 'react';
import { FieldError } from '../../components/ErrorNotice.tsx';
import { capabilityUnion, grantedBy, type Role } from './capabilities.ts';

/**
 * Role checkboxes of a user form, with a live preview of the capabilities the ticked roles give
 * (the union of their permissions), and the API's message for `roles` next to them.
 */
export function RolePicker({
  roles,
  chosen,
  onChange,
  error,
}: {
  roles: readonly Role[];
  chosen: readonly string[];
  onChange: (next: string[]) => void;
  error: unknown;
}) {
  const id = useId();
  const union = capabilityUnion(roles, chosen);
  const toggle = (name: string) =>
    onChange(chosen.includes(name) ? chosen.filter((n) => n !== name) : [...chosen, name]);
  return (
    <div className="users-roles">
      <fieldset aria-describedby={`${id}-error`}>
        <legend>Roles</legend>
        {roles.length === 0 ? <p className="muted">No role exists yet.</p> : null}
        <ul className="users-checks">
          {roles.map((role) => (
            <li key={role.name}>
              <input
                type="checkbox"
                id={`${id}-${role.name}`}
                checked={chosen.includes(role.name)}
                onChange={() => toggle(role.name)}
              />
              <label htmlFor={`${id}-${role.name}`}>{role.name}</label>
              <span className="muted">
                {role.permissions.length > 0 ? role.permissions.join(', ') : 'no capability'}
              </span>
            </li>
          ))}
        </ul>
        <FieldError error={error} field="roles" id={`${id}-error`} />
      </fieldset>
      <div className="users-preview" aria-live="polite">
        <h3 id={`${id}-preview`}>Capabilities this user would get</h3>
        {union.length === 0 ? (
          <p className="muted">
            None: with no role ticked the user can sign in but use no page that needs one.
          </p>
        ) : (
          <ul aria-labelledby={`${id}-preview`}>
            {union.map((capability) => (
              <li key={capability}>
                <code>{capability}</code>{' '}
                <span className="muted">from {grantedBy(roles, chosen, capability).join(', ')}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
