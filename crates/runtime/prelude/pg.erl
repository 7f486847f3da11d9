%% pg: named process groups, as OTP 25's documentation describes them, on one
%% node. A scope is a gen_server registered under the scope's name that owns
%% a named table of the same name, one row per group: {Group, Members,
%% LocalMembers}. Joins and leaves go through the server (calls, so they are
%% ordered); reads go to the table (each a table operation a recording logs).
%% The server monitors every member and drops it from all its groups when it
%% dies.
%%
%% Not provided: monitor_scope/0,1 and monitor/1,2 (OTP 25.1 on).
%%
%% A process may join a group several times and is then listed as often.
%% join/3 puts the joining processes first, in the order given; leave/3
%% removes one listing of each process given, the first (its latest join),
%% and says not_joined when it removed none.
-module(pg).
-behaviour(gen_server).
-export([start_link/0, start_link/1, start/1, join/2, join/3, leave/2, leave/3,
         get_members/1, get_members/2, get_local_members/1, get_local_members/2,
         which_groups/0, which_groups/1, which_local_groups/0, which_local_groups/1]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2]).

-define(DEFAULT_SCOPE, pg).

start_link() -> start_link(?DEFAULT_SCOPE).

start_link(Scope) when is_atom(Scope) ->
    gen_server:start_link({local, Scope}, ?MODULE, [Scope], []).

start(Scope) when is_atom(Scope) ->
    gen_server:start({local, Scope}, ?MODULE, [Scope], []).

join(Group, PidOrPids) -> join(?DEFAULT_SCOPE, Group, PidOrPids).

join(Scope, Group, PidOrPids) when is_pid(PidOrPids); is_list(PidOrPids) ->
    ok = ensure_local(PidOrPids),
    gen_server:call(Scope, {join_local, Group, PidOrPids}, infinity).

leave(Group, PidOrPids) -> leave(?DEFAULT_SCOPE, Group, PidOrPids).

leave(Scope, Group, PidOrPids) when is_pid(PidOrPids); is_list(PidOrPids) ->
    ok = ensure_local(PidOrPids),
    gen_server:call(Scope, {leave_local, Group, PidOrPids}, infinity).

get_members(Group) -> get_members(?DEFAULT_SCOPE, Group).

get_members(Scope, Group) -> column(Scope, Group, 2).

get_local_members(Group) -> get_local_members(?DEFAULT_SCOPE, Group).

get_local_members(Scope, Group) -> column(Scope, Group, 3).

which_groups() -> which_groups(?DEFAULT_SCOPE).

which_groups(Scope) when is_atom(Scope) ->
    [Group || [Group] <- ets:match(Scope, {'$1', '_', '_'})].

%% On one node, the groups with local members are all the groups.
which_local_groups() -> which_groups(?DEFAULT_SCOPE).

which_local_groups(Scope) -> which_groups(Scope).

%% A column of a group's row; a scope that is not running has no groups.
column(Scope, Group, Column) ->
    try ets:lookup_element(Scope, Group, Column)
    catch error:badarg -> []
    end.

ensure_local(Pid) when is_pid(Pid), node(Pid) =:= node() -> ok;
ensure_local([]) -> ok;
ensure_local([Pid | Rest]) when is_pid(Pid), node(Pid) =:= node() -> ensure_local(Rest);
ensure_local([Bad | _]) -> erlang:error({nolocal, Bad});
ensure_local(Bad) -> erlang:error({nolocal, Bad}).

%% The scope's server. Its state: the scope, and for each member its
%% monitor and the groups it is listed in (once per listing).

init([Scope]) ->
    Scope = ets:new(Scope, [set, protected, named_table, {read_concurrency, true}]),
    {ok, {Scope, #{}}}.

handle_call({join_local, Group, PidOrPids}, _From, {Scope, Members}) ->
    Pids = pids(PidOrPids),
    store(Scope, Group, Pids ++ get_members(Scope, Group)),
    {reply, ok, {Scope, lists:foldl(fun(Pid, M) -> listed(Pid, Group, M) end, Members, Pids)}};
handle_call({leave_local, Group, PidOrPids}, _From, {Scope, Members}) ->
    Old = get_members(Scope, Group),
    {Left, Members1} = lists:foldl(fun(Pid, {List, M}) -> unlist(Pid, Group, List, M) end,
                                   {Old, Members}, pids(PidOrPids)),
    case Left =:= Old of
        true -> {reply, not_joined, {Scope, Members}};
        false ->
            store(Scope, Group, Left),
            {reply, ok, {Scope, Members1}}
    end;
handle_call(Request, _From, _State) ->
    erlang:error(badarg, [Request]).

handle_cast(_Message, State) -> {noreply, State}.

handle_info({'DOWN', Ref, process, Pid, _}, {Scope, Members}) ->
    case Members of
        #{Pid := {Ref, Groups}} ->
            [store(Scope, G, [P || P <- get_members(Scope, G), P =/= Pid]) || G <- lists:usort(Groups)],
            {noreply, {Scope, maps:remove(Pid, Members)}};
        _ -> {noreply, {Scope, Members}}
    end;
handle_info(_Message, State) -> {noreply, State}.

pids(Pid) when is_pid(Pid) -> [Pid];
pids(Pids) -> Pids.

store(Scope, Group, []) -> ets:delete(Scope, Group);
store(Scope, Group, List) -> ets:insert(Scope, {Group, List, List}).

%% Pid listed once more in Group: monitored from its first listing on.
listed(Pid, Group, Members) ->
    case Members of
        #{Pid := {Ref, Groups}} -> Members#{Pid := {Ref, [Group | Groups]}};
        _ -> Members#{Pid => {erlang:monitor(process, Pid), [Group]}}
    end.

%% One listing of Pid taken out of List (the group's members, newest
%% first: the newest listing goes), and out of what the server keeps.
unlist(Pid, Group, List, Members) ->
    case lists:member(Pid, List) of
        false -> {List, Members};
        true ->
            Left = lists:delete(Pid, List),
            #{Pid := {Ref, Groups}} = Members,
            case lists:delete(Group, Groups) of
                [] ->
                    erlang:demonitor(Ref, [flush]),
                    {Left, maps:remove(Pid, Members)};
                Rest -> {Left, Members#{Pid := {Ref, Rest}}}
            end
    end.
