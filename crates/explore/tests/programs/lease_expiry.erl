%% A lock server whose grant expires after 5 ms unless released. Two
%% clients each take the lock, tell an auditor they entered and left, and
%% release. With virtual timeouts the lease may expire before its holder
%% releases it, the server grants the lock again, and both clients are
%% inside at once (main's match of the auditor's maximum fails). The
%% failure's explanation must name that expiry against the release, a race
%% exploration only reverses through the later race between one client's
%% enter and the other's leave.
%% explore: fails 1
%% interleavings: 284
-module(lease_expiry).
-export([main/0]).

main() ->
    Auditor = spawn(fun() -> audit(0) end),
    Lock = spawn(fun() -> free() end),
    Me = self(),
    [spawn(fun() -> client(Lock, Auditor, Me) end) || _ <- [1, 2]],
    [receive done -> ok end || _ <- [1, 2]],
    Auditor ! {stop, self()},
    receive {max, M} -> io:format("at most ~p inside~n", [M]), true = M =< 1 end.

free() ->
    receive {take, C} -> T = erlang:send_after(5, self(), {expire, C}), C ! granted, held(C, T) end.

held(C, T) ->
    receive
        {release, C} -> erlang:cancel_timer(T), free();
        {expire, C} -> free()
    end.

client(Lock, Auditor, Main) ->
    Lock ! {take, self()},
    receive granted -> ok end,
    Auditor ! enter,
    Auditor ! leave,
    Lock ! {release, self()},
    Main ! done.

audit(Max) -> audit(0, Max).
audit(In, Max) ->
    receive
        enter -> audit(In + 1, max(Max, In + 1));
        leave -> audit(In - 1, Max);
        {stop, From} -> From ! {max, Max}
    end.
