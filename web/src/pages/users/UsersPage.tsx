import { NavLink, Route, Routes } from 'react-router';
import { RoleEdit, RoleList } from './Roles.tsx';
import { UserCreate } from './UserCreate.tsx';
import { UserEdit } from './UserEdit.tsx';
import { UserList } from './UserList.tsx';
import './users.css';

/** Users and roles (`manage_users`): /users, /users/new, /users/:id, /users/roles, /users/roles/new, /users/roles/:name. */
export function UsersPage() {
  return (
    <>
      <nav aria-label="Users and roles" className="users-tabs">
        <NavLink to="/users" end>
          Users
        </NavLink>
        <NavLink to="/users/roles">Roles</NavLink>
      </nav>
      <Routes>
        <Route index element={<UserList />} />
        <Route path="new" element={<UserCreate />} />
        <Route path="roles" element={<RoleList />} />
        <Route path="roles/new" element={<RoleEdit />} />
        <Route path="roles/:name" element={<RoleEdit />} />
        <Route path=":id" element={<UserEdit />} />
      </Routes>
    </>
  );
}
