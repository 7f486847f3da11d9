%% A client calls a registered server while its supervisor restarts it. The
%% client knows that a call can find the server stopping ({normal, _}); it
%% yields, to let the supervisor restart the server, and calls again. It
%% forgets that until the new server has registered the name is free: on
%% the schedules where the retry comes before that, gen_server:call exits
%% with noproc and the client crashes. That is BEAM's usual order (the
%% supervisor is preempted while it logs the child's exit), and the
%% engine's default schedule too.
-module(restart_race).
-behaviour(gen_server).
-export([main/0, start_link/1, init/1, handle_call/3, handle_cast/2]).

start_link(Name) -> gen_server:start_link({local, Name}, ?MODULE, Name, []).

init(sup) ->
    {ok, {#{strategy => one_for_one, intensity => 10, period => 10},
          [#{id => srv, start => {?MODULE, start_link, [srv]}}]}};
init(Name) ->
    {ok, Name}.

handle_call(ping, _From, S) -> {reply, pong, S}.

handle_cast(restart, S) -> {stop, normal, S}.

call_with_retry() ->
    try gen_server:call(srv, ping)
    catch exit:{normal, _} ->
            erlang:yield(),
            call_with_retry()
    end.

main() ->
    {ok, Sup} = supervisor:start_link(?MODULE, sup),
    Replies = [begin
                   gen_server:cast(srv, restart),
                   call_with_retry()
               end || _ <- lists:seq(1, 3)],
    unlink(Sup),
    exit(Sup, shutdown),
    Replies.
